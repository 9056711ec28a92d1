// The status page at the sizes through a real server (docs/monitoring.md "Status page"):
// 8 components (5 enabled providers), 90 days of traffic, 20 incidents; and a built-in provider
// rule's incident shown on its component.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020";
import schema from "../../fixtures/statuspage-v2-summary.schema.json";
import { ManualClock } from "../../../src/lib/clock.ts";
import { prepareRow } from "../../../src/store/log-batch-codec.ts";
import type { RequestRecord } from "../../../src/store/repos/requests.ts";
import { admin, ok, type Json } from "../../helpers/admin-api.ts";
import { openaiUpstream, startGw } from "../../helpers/start-gw.ts";
import type { TestGw } from "../../helpers/test-gw.ts";

const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addFormat("date-time", /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
ajv.addFormat("date", /^\d{4}-\d{2}-\d{2}$/);
ajv.addFormat("uri", /^https?:\/\/\S+$/);
const validate = ajv.compile(schema);

const DAY = 86_400_000;
const PROVIDERS = ["openai", "groq", "deepseek", "mistral", "xai"];
const NOW = Date.UTC(2026, 10, 26, 12, 0, 0);
const clock = new ManualClock(NOW);
let gw: TestGw;
let stop: () => Promise<void>;
let base: string;

/** A day's log rows written through the log insert path: one an hour per provider, some failing. */
function dayRows(day: number): RequestRecord[] {
  const rows: RequestRecord[] = [];
  for (let h = 0; h < 24; h++) {
    PROVIDERS.forEach((provider, p) => {
      const createdAt = NOW - day * DAY - h * 3_600_000 - p * 1000;
      const failed = (day + h + p) % 17 === 0;
      const id = `req_${String(createdAt).padStart(15, "0")}${String(day * 1000 + h * 10 + p).padStart(10, "0")}`;
      rows.push({
        id, projectId: gw.projectId, keyId: null, traceId: `trc_${id.slice(4)}`, createdAt, endpoint: "chat.completions",
        requestedModel: `${provider}/some-model`, selectedModel: failed ? null : `${provider}/some-model`, provider: failed ? null : provider,
        task: null, taskSubtype: null, inputTokens: 1, outputTokens: 1, cost: 0, saved: 0, cache: null, status: failed ? 502 : 200,
        errorCode: failed ? "upstream_error" : null, errorMessage: null, errorCategory: failed ? "UPSTREAM_ERROR" : null,
        latencyMs: 300 + h * 10, ttftMs: null, overheadMs: 1, fallbacks: 0, workflowId: null, step: null, tags: [], stream: false, test: false, trace: null,
      });
    });
  }
  return rows;
}

beforeAll(async () => {
  const upstream = openaiUpstream();
  ({ gw, stop } = await startGw({ upstreams: Object.fromEntries(PROVIDERS.map((p) => [p, upstream])), clock }));
  base = gw.url.replace(/\/v1$/, "");
  for (let day = 0; day < 92; day++) gw.deps.repos.requests.insertPrepared(dayRows(day).map(prepareRow));
  for (let i = 0; i < 20; i++) {
    await ok(await admin(gw, "POST", "/status/incidents", {
      name: `Incident ${i}: ${"elevated latency and errors on several providers ".repeat(3)}`, impact: (["minor", "major", "critical"] as const)[i % 3],
      components: ["api", `provider-${PROVIDERS[i % 5]}`], body: `Update ${i}: ${"we are investigating <b>this</b> & more. ".repeat(20)}`,
    }), 201);
  }
});
afterAll(() => stop());

describe("the status page at the issue's sizes", () => {
  test("/status has no script and stays under 20,480 bytes with 8 components, 90 days and 20 incidents", async () => {
    const res = await fetch(`${base}/status`);
    const html = await res.text();
    expect(html).not.toContain("<script");
    expect(Buffer.byteLength(html)).toBeLessThan(20_480);
    expect(html.match(/class=name>/g)?.length).toBe(8);
    expect(html.match(/<ul class=bars/g)?.length).toBe(8);
    // 90 bars per component, and every day of traffic shown (none grey).
    expect(html.match(/<li class=[udpmn]>/g)?.length).toBe(8 * 90);
    expect(html).not.toContain("<b>this</b>");
  });

  test("the status JSON validates with 8 components, 20 open incidents and 90 days of uptime", async () => {
    const s = (await (await fetch(`${base}/status.json`)).json()) as Json & { components: Json[]; incidents: Json[]; gw: { components: Array<{ id: string; uptime: Json }> } };
    if (!validate(s)) throw new Error(JSON.stringify(validate.errors, null, 2));
    expect(s.components.map((c) => c.id).slice(0, 3)).toEqual(["api", "routing", "cache"]);
    expect(s.components.map((c) => String(c.id)).slice(3).sort()).toEqual(PROVIDERS.map((p) => `provider-${p}`).sort());
    expect(s.incidents.length).toBe(20);
    const openai = s.gw.components.find((c) => c.id === "provider-openai")!;
    for (const w of ["24h", "7d", "30d", "90d"]) {
      expect(openai.uptime[w]).toBeGreaterThan(0.9);
      expect(openai.uptime[w]).toBeLessThan(1);
    }
  });

  test("a built-in provider rule's open incident is listed on its component", async () => {
    gw.deps.db.query(
      `INSERT INTO incidents (id, project_id, rule_id, rule_name, component, severity, metric, threshold, window, status, opened_at)
       VALUES ('inc_builtin1', NULL, 'builtin:provider:groq:availability', 'groq availability', 'provider:groq', 'critical', 'availability', 99, '5m', 'opened', ?)`,
    ).run(clock.now() - 60_000);
    clock.advance(6_000);
    const s = (await (await fetch(`${base}/status.json`)).json()) as { incidents: Json[] };
    const found = s.incidents.find((x) => x.id === "inc_builtin1");
    expect(found).toMatchObject({ name: "groq availability", status: "investigating", impact: "major" });
    expect((found!.components as Json[]).map((c) => c.id)).toEqual(["provider-groq"]);
  });
});
