// PostgreSQL stopped and started again under two gw processes (docs/scale-out.md "Failure
// behaviour"): while it is down, requests needing money or the log answer 503 in the envelope within
// the bound and the processes stay up; once it is back they serve again without a restart, and every
// request answered 200 before, during or after has its log row and its charge.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { toUsd } from "../../src/billing/money.ts";
import { answerWith, user, worstChargeNano } from "../flows/billing/billing-helpers.ts";
import { boundMessageTokens } from "../../src/analysis/tokens.ts";
import { startMultiGw, type MultiGw } from "../helpers/multi-gw.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { upstreamEnv } from "../helpers/start-gw.ts";
import { waitFor } from "../helpers/wait-for.ts";

const MODEL = "openai/gpt-4o-mini";
const messages = user("Give me one sentence about lighthouses.");
const MAX_TOKENS = 50;

let upstream: ScriptedUpstream;
let m: MultiGw;
beforeAll(async () => {
  upstream = await startScriptedUpstream();
  m = await startMultiGw(2, { ...upstreamEnv("openai", upstream.url, "sk-outage"), GW_SEMANTIC_EMBEDDER: "off" });
});
afterAll(async () => {
  await m?.stop();
  await upstream?.stop();
});

async function ask(key: string, i: number): Promise<{ status: number; code?: string; id: string | null; retryAfter: string | null }> {
  upstream.script({ body: answerWith(boundMessageTokens(messages), MAX_TOKENS) }, 1);
  const res = await fetch(`${m.instances[i % 2]!.url}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "x-gw-cache": "off" },
    body: JSON.stringify({ model: MODEL, messages, max_tokens: MAX_TOKENS }),
  });
  const body = (await res.json()) as { error?: { code: string } };
  return { status: res.status, code: body.error?.code, id: res.headers.get("x-gw-request-id"), retryAfter: res.headers.get("retry-after") };
}

describe("PostgreSQL stopped and started again", () => {
  test("down: 503 service_unavailable, processes up; back: served again, every 200 logged and charged once", async () => {
    const created = await m.admin("POST", "/projects", { name: "outage", billing: { mode: "prepaid" } });
    const { id: projectId } = (await created.json()) as { id: string };
    const keyRes = await m.admin("POST", `/projects/${projectId}/keys`, { scopes: ["chat"], mode: "live" });
    const { key } = (await keyRes.json()) as { key: string };
    expect((await m.admin("POST", `/projects/${projectId}/credits`, { amount: toUsd(100 * worstChargeNano(messages, MAX_TOKENS)) })).status).toBe(200);
    await waitFor(async () => (await m.admin("GET", `/projects/${projectId}`, undefined, 1)).status === 200, { what: "the project on instance 1" });

    const served: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await ask(key, i);
      expect(r.status).toBe(200);
      served.push(r.id!);
    }

    await m.pg.down();
    for (let i = 0; i < 4; i++) {
      const r = await ask(key, i);
      expect(r).toMatchObject({ status: 503, code: "service_unavailable" });
      expect(r.retryAfter).not.toBeNull();
    }
    for (const gw of m.instances) {
      expect(gw.proc.exitCode).toBeNull();
      expect((await fetch(`${gw.origin}/healthz`)).status).toBe(200);
    }

    await m.pg.up();
    // Each instance's pool reconnects on its next call: ask each until it serves.
    for (let i = 0; i < 2; i++) {
      await waitFor(async () => {
        const r = await ask(key, i);
        if (r.status === 200) served.push(r.id!);
        return r.status === 200;
      }, { timeoutMs: 30_000, what: `instance ${i} serving again` });
    }
    for (let i = 0; i < 4; i++) {
      const r = await ask(key, i);
      expect(r.status).toBe(200);
      served.push(r.id!);
    }

    const sql = new SQL(m.pg.url);
    try {
      const logged: Array<{ id: string }> = await sql`SELECT id FROM requests WHERE project_id = ${projectId} AND status = 200`;
      expect(new Set(logged.map((r) => r.id))).toEqual(new Set(served));
      const charges: Array<{ request_id: string; n: number }> = await sql`SELECT request_id, count(*)::int AS n FROM ledger
        WHERE project_id = ${projectId} AND kind = 'charge' GROUP BY request_id`;
      expect(new Set(charges.map((c) => c.request_id))).toEqual(new Set(served));
      expect(charges.every((c) => c.n === 1)).toBe(true);
    } finally {
      await sql.close();
    }
  });
});
