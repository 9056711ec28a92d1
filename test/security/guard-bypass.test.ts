// The guard bypass corpus through the real server (issue 15 item 4; docs/guard.md "Bypass
// corpus"): under `block` every case answers 400 blocked_by_policy and nothing reaches the
// scripted upstream; under `redact` every case is served and no value can be read in anything the
// upstream received. A project that allows everything shows the check can see each value.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { post } from "../helpers/test-gw.ts";
import { type GuardGw, startGuardGw } from "../flows/guard/guard-helpers.ts";
import { bypassCorpus, type BypassCase } from "../fixtures/guard-bypass.ts";
import { leaks } from "../guard/leak.ts";

const CORPUS = bypassCorpus();
let g: GuardGw;
beforeAll(async () => {
  g = await startGuardGw();
});
afterAll(() => g.stop());

/** Sends every case (a few at a time) and returns each status with its error code. */
async function sendAll(key: string, cases: readonly BypassCase[]): Promise<Array<{ name: string; status: number; code: string | null }>> {
  const out: Array<{ name: string; status: number; code: string | null }> = [];
  for (let i = 0; i < cases.length; i += 8) {
    const batch = cases.slice(i, i + 8);
    out.push(...(await Promise.all(batch.map(async (c) => {
      const res = await post(`${g.gw.url}/chat/completions`, key, { ...c.body, cache: { mode: "bypass" } });
      const body = (await res.json()) as { error?: { code: string } };
      return { name: c.name, status: res.status, code: body.error?.code ?? null };
    }))));
  }
  return out;
}

describe(`guard bypass corpus through the server (${CORPUS.length} cases)`, () => {
  test("the check sees the values when the project allows them (so the next two can fail)", async () => {
    const { key } = await g.keyFor({ pii: "allow", secrets: "allow" });
    g.upstream.reset();
    const sample = CORPUS.filter((_, i) => i % 10 === 0);
    const results = await sendAll(key, sample);
    expect(results.filter((r) => r.status !== 200)).toEqual([]);
    const unseen = sample.filter((c) => !g.upstream.calls.some((call) => leaks(call.body, c.canonical)));
    expect(unseen.map((c) => c.name)).toEqual([]);
  });

  test("block: every case answers 400 blocked_by_policy and the upstream gets nothing", async () => {
    const { key } = await g.keyFor({ pii: "block", secrets: "block" });
    g.upstream.reset();
    const results = await sendAll(key, CORPUS);
    expect(results.filter((r) => r.status !== 400 || r.code !== "blocked_by_policy")).toEqual([]);
    expect(g.upstream.calls.length).toBe(0);
  });

  test("redact: every case is served and no value reaches the upstream in any spelling", async () => {
    const { key } = await g.keyFor({ pii: "redact", secrets: "redact" });
    g.upstream.reset();
    const results = await sendAll(key, CORPUS);
    expect(results.filter((r) => r.status !== 200)).toEqual([]);
    expect(g.upstream.calls.length).toBe(CORPUS.length);
    const canonicals = [...new Set(CORPUS.map((c) => c.canonical))];
    const leaked = g.upstream.calls.flatMap((call, i) => canonicals.filter((v) => leaks(call.body, v)).map((v) => `call ${i}: ${v.slice(0, 4)}...`));
    expect(leaked).toEqual([]);
  });
});
