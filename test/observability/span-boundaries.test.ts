// The runner reads the clock once per stage boundary (src/pipeline/runner.ts): a synchronous stage's
// span ends where the next one starts, so the steps of a request tile its time without gaps.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { post, startTestGw, type TestGw } from "../helpers/test-gw.ts";

let gw: TestGw;
beforeAll(async () => {
  gw = await startTestGw();
});
afterAll(() => gw.stop());

interface Span { name: string; start_ms: number; duration_ms: number }

test("guard to analysis, optimization to routing: each span starts where the one before it ended", async () => {
  const res = await post(`${gw.url}/chat/completions`, gw.testKey, { model: "gw-auto", messages: [{ role: "user", content: "Tell me a fact about owls" }] });
  expect(res.status).toBe(200);
  await gw.drain();
  const detail = (await (await fetch(`${gw.url}/requests/${res.headers.get("x-gw-request-id")}`, { headers: { authorization: `Bearer ${gw.testKey}` } })).json()) as { trace: { spans: Span[] } };
  const byName = new Map(detail.trace.spans.map((s) => [s.name, s]));
  for (const [before, after] of [["guard", "analysis"], ["optimization", "routing"]] as const) {
    const a = byName.get(before)!;
    // Both times are rounded to the microsecond on their own: the sum may be one off.
    expect(Math.abs(a.start_ms + a.duration_ms - byName.get(after)!.start_ms)).toBeLessThanOrEqual(0.0011);
  }
});
