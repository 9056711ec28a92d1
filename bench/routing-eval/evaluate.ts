// The routing evaluation (docs/routing.md "Calibration"): every corpus entry through the pipeline's
// own analyze and route stages, with every catalog provider enabled, and the figures item 2 of
// issue 22 is judged by. Shared by run.ts and test/routing/calibration.test.ts.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProject } from "../../src/admin/projects.ts";
import { authenticate, issueKey } from "../../src/auth/api-keys.ts";
import { loadConfig } from "../../src/config/env.ts";
import { buildDeps } from "../../src/deps.ts";
import { GwError } from "../../src/errors/gw-error.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { SpanRecorder } from "../../src/observability/trace.ts";
import type { Deps } from "../../src/pipeline/deps.ts";
import { analyze } from "../../src/pipeline/stages/analyze.ts";
import { route } from "../../src/pipeline/stages/route.ts";
import { newState, type RequestState } from "../../src/pipeline/state.ts";
import type { CatalogModel } from "../../src/routing/catalog-types.ts";
import type { GwOptions } from "../../src/schema/chat-completions.ts";
import { corpusRequest, type Complexity, type CorpusEntry } from "../../test/helpers/task-corpus.ts";

/** Every keyed provider of the catalog, enabled with a placeholder key (no call is made). */
export const ALL_PROVIDERS = {
  OPENAI_API_KEY: "sk-e", ANTHROPIC_API_KEY: "sk-e", GEMINI_API_KEY: "sk-e", MISTRAL_API_KEY: "sk-e", GROQ_API_KEY: "sk-e",
  DEEPSEEK_API_KEY: "sk-e", XAI_API_KEY: "sk-e", TOGETHER_API_KEY: "sk-e", OPENROUTER_API_KEY: "sk-e",
};

/** USD per million tokens, three input tokens to one output token (the usual blend). */
export const blendedPrice = (m: CatalogModel): number => (3 * m.input_price + m.output_price) / 4;

/** The middle value, or the mean of the two middle values. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export interface Routed {
  entry: CorpusEntry;
  task: string;
  complexity: Complexity;
  chosen: CatalogModel;
  /** The models able to serve the request (not excluded): the population of the medians. */
  able: CatalogModel[];
  /** Chosen quality for the LABELLED kind >= the median of the able models'. */
  strong: boolean;
  /** Chosen blended price < the median of the able models'. */
  cheap: boolean;
}

export interface Router {
  deps: Deps;
  /** Analyze and route one request as the pipeline does, with these gw options (max_cost, routing). */
  state(entry: CorpusEntry, requestId: string, options?: GwOptions, model?: string): RequestState;
  close(): void;
}

export function openRouter(): Router {
  const dataDir = mkdtempSync(join(tmpdir(), "gw-routing-eval-"));
  const deps = buildDeps(loadConfig({ port: "0", data: dataDir }, ALL_PROVIDERS), { logger: createLogger("silent") });
  const projectId = createProject(deps.repos.projects, { name: "routing-eval" }).id;
  const auth = authenticate(`Bearer ${issueKey(deps.repos.apiKeys, { projectId, mode: "live" }).secret}`, deps.repos);
  return {
    deps,
    state(entry, requestId, options = {}, model = "gw-auto") {
      const t0 = performance.now();
      const http = new Request("http://127.0.0.1/v1/chat/completions", { method: "POST" });
      const state = newState({ requestId, traceId: "eval", parentSpanId: null, auth, http, spans: new SpanRecorder(t0), t0 });
      state.request = { ...corpusRequest(entry), model };
      state.requestedModel = model;
      state.options = options;
      analyze(deps, state);
      route(deps, state);
      return state;
    },
    close() {
      deps.db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function routeEntry(router: Router, entry: CorpusEntry, requestId = `req_${entry.id}`): Routed {
  const state = router.state(entry, requestId);
  const chosen = state.ranked[0]!;
  const able = state.candidates.filter((c) => c.rank !== null && c.excluded === undefined)
    .map((c) => router.deps.catalog.get(c.model)!);
  const q = (m: CatalogModel) => m.quality[entry.task] ?? m.quality.general;
  return {
    entry, task: state.analysis!.task, complexity: state.analysis!.complexity, chosen, able,
    strong: q(chosen) >= median(able.map(q)),
    cheap: blendedPrice(chosen) < median(able.map(blendedPrice)),
  };
}

export interface Report {
  n: number;
  /** confusion[label][detected] of complexity. */
  confusion: Record<Complexity, Record<Complexity, number>>;
  taskAgreement: number;
  high: { n: number; strong: number };
  low: { n: number; cheap: number };
  /** Models by the share of requests they were chosen for, busiest first. */
  shares: Array<[string, number]>;
  /** Runs with max_cost set, and those whose trace.expected.cost exceeded it (must be 0). */
  capped: { runs: number; refused: number; over: number };
  rows: Routed[];
}

const LEVELS: readonly Complexity[] = ["low", "medium", "high"];

export function evaluate(entries: readonly CorpusEntry[], router: Router): Report {
  const confusion = Object.fromEntries(LEVELS.map((l) => [l, { low: 0, medium: 0, high: 0 }])) as Report["confusion"];
  const rows = entries.map((e) => routeEntry(router, e));
  const counts = new Map<string, number>();
  let agree = 0;
  for (const r of rows) {
    confusion[r.entry.complexity][r.complexity]++;
    if (r.task === r.entry.task) agree++;
    counts.set(r.chosen.id, (counts.get(r.chosen.id) ?? 0) + 1);
  }
  const high = rows.filter((r) => r.entry.complexity === "high");
  const low = rows.filter((r) => r.entry.complexity === "low");
  return {
    n: rows.length, confusion, taskAgreement: agree / Math.max(1, rows.length),
    high: { n: high.length, strong: high.filter((r) => r.strong).length },
    low: { n: low.length, cheap: low.filter((r) => r.cheap).length },
    shares: [...counts].sort((a, b) => b[1] - a[1]).map(([id, c]) => [id, c / Math.max(1, rows.length)]),
    capped: capCheck(entries, router), rows,
  };
}

/** Each entry again under three max_cost caps ($0.0005, $0.005, $0.05): a served request's
 * trace.expected.cost must never exceed its cap (a refusal, 402 or 503, is fine). */
function capCheck(entries: readonly CorpusEntry[], router: Router): Report["capped"] {
  let runs = 0;
  let refused = 0;
  let over = 0;
  for (const [i, e] of entries.entries()) {
    for (const cap of [0.0005, 0.005, 0.05]) {
      runs++;
      try {
        const state = router.state(e, `cap_${i}_${cap}`, { max_cost: cap });
        if ((state.expected?.cost ?? 0) > cap) over++;
      } catch (err) {
        if (!(err instanceof GwError)) throw err;
        refused++;
      }
    }
  }
  return { runs, refused, over };
}
