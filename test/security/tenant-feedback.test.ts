// Tenant-local feedback quality (issue 15 item 2): a project's ratings move its own routing; other
// projects see them only through a cross-project prior where one project counts as at most
// PROJECT_CAP ratings; cache hits are not ratable. Unit bounds, then the attack through HTTP.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { buildCatalog } from "../../src/routing/catalog.ts";
import { FeedbackQuality, PROJECT_CAP } from "../../src/routing/feedback-quality.ts";
import type { ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { openaiUpstream, startGw } from "../helpers/start-gw.ts";
import { post, type TestGw } from "../helpers/test-gw.ts";

const sonnet = buildCatalog().get("anthropic/claude-sonnet-4-5")!;

describe("FeedbackQuality per project", () => {
  test("2,999 one-star ratings from one project move another's quality by at most its capped share", () => {
    const f = new FeedbackQuality();
    const prior = sonnet.quality.coding;
    for (let i = 0; i < 2_999; i++) f.record("prj_attacker", sonnet.id, "coding", 1);
    expect(f.quality(sonnet, "coding", false, "prj_attacker")).toBeLessThan(0.05);
    const victim = f.quality(sonnet, "coding", false, "prj_victim");
    // Worst case: the whole gap times PROJECT_CAP / (20 + PROJECT_CAP).
    expect(prior - victim).toBeLessThanOrEqual((prior * PROJECT_CAP) / (20 + PROJECT_CAP) + 0.001);
    expect(prior - victim).toBeLessThan(0.05);
  });

  test("many projects agreeing do move the shared prior; test-mode ratings never leave their project", () => {
    const f = new FeedbackQuality();
    for (let p = 0; p < 40; p++) for (let i = 0; i < 3; i++) f.record(`prj_${p}`, sonnet.id, "coding", 1);
    expect(f.quality(sonnet, "coding", false, "prj_new")).toBeLessThan(sonnet.quality.coding * 0.5);
    for (let i = 0; i < 50; i++) f.record("prj_t", sonnet.id, "chat", 1, true);
    expect(f.quality(sonnet, "chat", true, "prj_other")).toBe(sonnet.quality.chat);
    expect(f.quality(sonnet, "chat", false, "prj_other")).toBe(sonnet.quality.chat);
    expect(f.quality(sonnet, "chat", true, "prj_t")).toBeLessThan(sonnet.quality.chat);
  });

  test("a project's own ratings count once for itself (its share is not also in its prior); replace keeps the cap", () => {
    const f = new FeedbackQuality();
    f.record("prj_a", sonnet.id, "qa", 5);
    f.replace("prj_a", sonnet.id, "qa", 5, 1);
    const q = sonnet.quality.qa;
    expect(f.quality(sonnet, "qa", false, "prj_a")).toBeCloseTo((q * 20) / 21, 3);
    expect(f.quality(sonnet, "qa", false, "prj_b")).toBeCloseTo((q * 20) / 21, 3);
    expect(f.ratings(sonnet.id, "qa", false, "prj_a")).toBe(1);
  });
});

describe("through the API: rating one's own cache hits", () => {
  let up: ScriptedUpstream;
  let gw: TestGw;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ gw, upstreams: { openai: up }, stop } = await startGw({ upstreams: { openai: openaiUpstream({}, "sk-operator-0000000000") } }));
  });
  afterAll(() => stop());

  const QUESTION = "Translate 'good morning, see you at the station' into French.";
  async function candidates(key: string): Promise<Record<string, number | undefined>> {
    const res = await post(`${gw.url}/chat/completions`, key, { model: "gw-auto", messages: [{ role: "user", content: QUESTION }] }, { "x-gw-cache": "off" });
    expect(res.status).toBe(200);
    const id = res.headers.get("x-gw-request-id")!;
    await res.text();
    await gw.drain();
    const detail = (await (await fetch(`${gw.url}/requests/${id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
      trace: { candidates: Array<{ model: string; quality?: number }> };
    };
    return Object.fromEntries(detail.trace.candidates.map((c) => [c.model, c.quality]));
  }

  test("one paid answer and 2,999 one-star ratings of its exact hits leave another project's gw-auto candidates unchanged", async () => {
    const attacker = gw.key({ mode: "live", projectId: gw.newProject("attacker"), scopes: ["chat", "requests"] });
    const victim = gw.key({ mode: "live", projectId: gw.newProject("victim"), scopes: ["chat", "requests"] });
    const before = await candidates(victim);
    const model = "openai/gpt-4o-mini";
    expect(before[model]).toBeNumber();

    const body = { model, messages: [{ role: "user", content: QUESTION }] };
    const paid = await post(`${gw.url}/chat/completions`, attacker, body);
    expect(paid.status).toBe(200);
    await paid.text();
    const paidCalls = up.callCount();
    for (let batch = 0; batch < 2_999; batch += 100) {
      const hits = await Promise.all(Array.from({ length: Math.min(100, 2_999 - batch) }, async () => {
        const res = await post(`${gw.url}/chat/completions`, attacker, body);
        expect(res.headers.get("x-gw-cache")).toBe("exact");
        await res.text();
        return res.headers.get("x-gw-request-id")!;
      }));
      await gw.drain();
      const rated = await Promise.all(hits.map((id) => post(`${gw.url}/requests/${id}/feedback`, attacker, { rating: 1 })));
      for (const r of rated) expect(r.status).toBe(200);
    }
    expect(up.callCount()).toBe(paidCalls);
    expect(await candidates(victim)).toEqual(before);
  }, 120_000);
});
