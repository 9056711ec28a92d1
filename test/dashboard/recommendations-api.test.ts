// GET /dashboard/api/recommendations through a real server and sign-in (docs/dashboard.md
// "Recommendations"): live log rows and live ratings of the last 30 days give one cheaper_model
// recommendation and the semantic cache advice; test-mode rows, old ratings and other projects do not count.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requestIdAt } from "../../src/lib/ids.ts";
import { RULE_TEXT } from "../../src/monitoring/recommendations.ts";
import { prepareRow } from "../../src/store/log-batch-codec.ts";
import type { RequestRecord } from "../../src/store/repos/requests.ts";
import { ADMIN_TOKEN, startTestGw, type TestGw } from "../helpers/test-gw.ts";

const DAY = 86_400_000;
let gw: TestGw;
let base: string;
let cookie: string;
let seq = 0;

function row(projectId: string, model: string, cost: number, over: Partial<RequestRecord> = {}): RequestRecord {
  const createdAt = Date.now() - (1 + (seq % 20)) * DAY;
  const i = seq++;
  return {
    id: `${requestIdAt(createdAt)}0000dddd${String(i).padStart(5, "0")}`, projectId, keyId: null, traceId: `trc_r${i}`, createdAt,
    endpoint: "chat.completions", requestedModel: "gw-auto", selectedModel: model, provider: model.split("/")[0]!, task: "summarize",
    taskSubtype: null, inputTokens: 100, outputTokens: 50, cost, saved: 0, cache: null, status: 200, errorCode: null, errorMessage: null,
    errorCategory: null, latencyMs: 300, ttftMs: null, overheadMs: 1, fallbacks: 0, workflowId: null, step: null, tags: [],
    stream: false, test: false, trace: null, ...over,
  };
}

function rate(projectId: string, r: RequestRecord, rating: number, now = Date.now()): void {
  gw.deps.repos.feedback.rate({ projectId, requestId: r.id, modelId: r.selectedModel, task: r.task, test: false, counted: true, rating, now });
}

const get = async (query = "") => {
  const res = await fetch(`${base}/dashboard/api/recommendations${query}`, { headers: { cookie } });
  expect(res.status).toBe(200);
  return (await res.json()) as { object: string; rule: string; data: Array<Record<string, unknown>> };
};

beforeAll(async () => {
  gw = await startTestGw();
  base = gw.url.replace(/\/v1$/, "");
  const rows: RequestRecord[] = [];
  const big = Array.from({ length: 120 }, () => row(gw.projectId, "openai/gpt-4o", 0.01));
  const small = Array.from({ length: 40 }, () => row(gw.projectId, "openai/gpt-4o-mini", 0.002));
  // Exact repeats: 20 of 180 live requests; test-mode rows of the cheap model count nowhere.
  const hits = Array.from({ length: 20 }, () => row(gw.projectId, "openai/gpt-4o", 0, { cache: "exact", task: "chat" }));
  const testRows = Array.from({ length: 300 }, () => row(gw.projectId, "openai/gpt-4o-mini", 0, { test: true }));
  rows.push(...big, ...small, ...hits, ...testRows);
  gw.deps.repos.requests.insertPrepared(rows.map(prepareRow));
  big.slice(0, 10).forEach((r) => rate(gw.projectId, r, 4));
  small.slice(0, 30).forEach((r, i) => rate(gw.projectId, r, i % 10 === 0 ? 4 : 5));
  cookie = (await fetch(`${base}/dashboard/api/session`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: ADMIN_TOKEN }),
  })).headers.get("set-cookie")!.split(";")[0]!;
});
afterAll(() => gw.stop());

describe("GET /dashboard/api/recommendations", () => {
  test("a cheaper model with 30 ratings, the saving over the task's 30 days, the semantic cache advice and the rule", async () => {
    const body = await get(`?project=${gw.projectId}`);
    expect(body.object).toBe("list");
    expect(body.rule).toBe(RULE_TEXT);
    const cheaper = body.data.find((d) => d.kind === "cheaper_model")!;
    expect(cheaper).toMatchObject({
      task: "summarize", current_model: "openai/gpt-4o", candidate_model: "openai/gpt-4o-mini", ratings: 30, current_mean: 4,
      current_cost_per_request: 0.01, candidate_cost_per_request: 0.002,
    });
    expect(cheaper.monthly_saving_usd as number).toBeCloseTo(0.008 * 160, 9);
    expect(body.data.find((d) => d.kind === "enable_semantic_cache")).toEqual({
      // 20 exact hits of 180 live requests; saving: half that share of the 30 days' $1.28.
      kind: "enable_semantic_cache", exact_repeat_share: 0.1111, requests_30d: 180, estimated_monthly_saving_usd: 0.071111,
    });
  });

  test("a rating older than 30 days leaves 29: no cheaper model; another project sees nothing", async () => {
    const old = gw.deps.db.query<{ request_id: string }, [string, string]>(
      "SELECT request_id FROM feedback WHERE project_id = ? AND model_id = ? LIMIT 1",
    ).get(gw.projectId, "openai/gpt-4o-mini")!;
    gw.deps.db.run("UPDATE feedback SET updated_at = ? WHERE project_id = ? AND request_id = ?", [Date.now() - 31 * DAY, gw.projectId, old.request_id]);
    expect((await get(`?project=${gw.projectId}`)).data.filter((d) => d.kind === "cheaper_model")).toEqual([]);
    expect((await get(`?project=${gw.newProject("quiet")}`)).data).toEqual([]);
  });
});
