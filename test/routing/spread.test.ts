// gw-auto's spread over equivalent models (docs/routing.md "Score"), through a real gw with a test
// key: different requests reach several models, each one of the equivalents in its trace; the same
// request and the same session stay on one model; explicit profiles and modes are not spread.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { buildCatalog } from "../../src/routing/catalog.ts";
import { SPREAD_COST_FACTOR, SPREAD_MARGIN } from "../../src/routing/score.ts";
import { requestSpreadHash, sessionSpreadHash, spreadPick, startWith } from "../../src/routing/spread.ts";
import { post, startTestGw, type TestGw } from "../helpers/test-gw.ts";

let gw: TestGw;
beforeAll(async () => {
  gw = await startTestGw();
});
afterAll(() => gw.stop());

interface Answer { model: string; gw: { request_id: string }; choices: Array<{ message: { content: string } }> }
interface Candidate { model: string; rank: number | null; score?: number; below_required_quality?: true }

async function ask(body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Answer> {
  // The response cache bypassed: every request is routed.
  const res = await post(`${gw.url}/chat/completions`, gw.testKey, { cache: { mode: "bypass" }, ...body }, headers);
  expect(res.status).toBe(200);
  return (await res.json()) as Answer;
}

async function traceOf(requestId: string): Promise<{ candidates: Candidate[]; reason: string }> {
  await gw.drain();
  const res = await fetch(`${gw.url}/requests/${requestId}`, { headers: { authorization: `Bearer ${gw.testKey}` } });
  return ((await res.json()) as { trace: { candidates: Candidate[]; reason: string } }).trace;
}

const CITIES = ["Lima", "Oslo", "Quito", "Accra", "Hanoi", "Perth", "Porto", "Cusco", "Turin", "Bern", "Riga", "Kyiv", "Cairo", "Dakar", "Davao", "Omaha", "Tampa", "Leeds", "Graz", "Split"];
const question = (i: number) => `Explain in two short paragraphs how the public transport network of ${CITIES[i % CITIES.length]} is organised, for a visitor (${i}).`;

describe("gw-auto spreads different requests over equivalent models", () => {
  test("40 different requests reach several models, each within the margin of the best score and meeting the bar", async () => {
    const chosen = new Map<string, number>();
    for (let i = 0; i < 40; i++) {
      const body = await ask({ messages: [{ role: "user", content: question(i) }] });
      chosen.set(body.model, (chosen.get(body.model) ?? 0) + 1);
      if (i % 8 !== 0) continue;
      const trace = await traceOf(body.gw.request_id);
      const ranked = trace.candidates.filter((c) => c.rank !== null);
      const best = Math.max(...ranked.filter((c) => !c.below_required_quality).map((c) => c.score!));
      expect(ranked[0]!.model).toBe(body.model);
      expect(ranked[0]!.below_required_quality).toBeUndefined();
      expect(ranked[0]!.score!).toBeGreaterThanOrEqual(best - SPREAD_MARGIN - 1e-9);
      expect(trace.reason).toContain(`within ${SPREAD_MARGIN} of it`);
    }
    expect(chosen.size).toBeGreaterThanOrEqual(3);
    expect(Math.max(...chosen.values())).toBeLessThan(30);
  });

  test("the same request goes to the same model every time (test-mode answers stay deterministic)", async () => {
    for (let i = 0; i < 5; i++) {
      const body = { messages: [{ role: "user", content: question(i) }] };
      const first = await ask(body);
      const again = await ask(body);
      expect(again.model).toBe(first.model);
      expect(again.choices[0]!.message.content).toBe(first.choices[0]!.message.content);
    }
  });

  test("a session's turns stay on the model of its first turn; new sessions spread", async () => {
    const firsts = new Set<string>();
    for (let s = 0; s < 12; s++) {
      const headers = { "X-Gw-Session": `spread-session-${s}` };
      const first = await ask({ messages: [{ role: "user", content: question(0) }] }, headers);
      firsts.add(first.model);
      for (let turn = 1; turn < 3; turn++) {
        const next = await ask({ messages: [{ role: "user", content: question(0) }, { role: "assistant", content: "..." }, { role: "user", content: question(turn + 7) }] }, headers);
        expect(next.model).toBe(first.model);
      }
    }
    expect(firsts.size).toBeGreaterThanOrEqual(2);
  });

  test("explicit profiles, a mode and min_quality are not spread: the highest score goes first", async () => {
    for (const extra of [{ model: "gw-balanced" }, { model: "gw-quality" }, { routing: { mode: "balanced" } }, { routing: { min_quality: 0.8 } }]) {
      const models = new Set<string>();
      for (let i = 0; i < 6; i++) {
        const body = await ask({ ...extra, messages: [{ role: "user", content: question(i) }] });
        models.add(body.model);
        const trace = await traceOf(body.gw.request_id);
        const ranked = trace.candidates.filter((c) => c.rank !== null && !c.below_required_quality);
        expect(ranked[0]!.score).toBe(Math.max(...ranked.map((c) => c.score!)));
      }
      expect(models.size).toBe(1);
    }
  });
});

describe("the spread's parts", () => {
  test("keys: stable for one session or one request, spread evenly over many", () => {
    expect(sessionSpreadHash("abc")).toBe(sessionSpreadHash("abc"));
    const messages = [{ role: "user" as const, content: "x".repeat(10_000) }];
    expect(requestSpreadHash(messages)).toBe(requestSpreadHash([{ role: "user", content: "x".repeat(10_000) }]));
    const hits = new Map<number, number>();
    for (let i = 0; i < 4_000; i++) {
      const at = spreadPick([0, 3, 5, 9], sessionSpreadHash(`s-${i}`));
      hits.set(at, (hits.get(at) ?? 0) + 1);
    }
    expect([...hits.keys()].sort((a, b) => a - b)).toEqual([0, 3, 5, 9]);
    for (const h of hits.values()) expect(h).toBeGreaterThan(800);
    expect(spreadPick([], 12345)).toBe(0);
    expect(spreadPick([2], 12345)).toBe(2);
  });

  test("startWith puts the pick first, keeps the others that meet the bar with providers alternating, and the rest after", () => {
    const catalog = buildCatalog();
    const row = (id: string, score: number, meetsQuality = true) =>
      ({ model: catalog.get(id)!, score, quality: 0.8, expectedCost: 0.001, latencyMs: 500, meetsQuality });
    const [a1, b1, a2, b2, c1] = ["openai/gpt-5-nano", "deepseek/deepseek-chat", "openai/gpt-4.1-nano", "deepseek/deepseek-reasoner", "groq/llama-3.1-8b-instant"];
    const ranked = [row(a1!, 0.9), row(b1!, 0.89), row(a2!, 0.88), row(b2!, 0.87), row(c1!, 0.5, false)];
    const out = startWith(ranked, 2).map((r) => r.model.id);
    expect(out).toEqual([a2, b1, a1, b2, c1]);
    expect(startWith(ranked, 0).map((r) => r.model.id)).toEqual(ranked.map((r) => r.model.id));
    expect(SPREAD_COST_FACTOR).toBeGreaterThan(1);
  });
});
