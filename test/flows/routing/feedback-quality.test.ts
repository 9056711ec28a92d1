// Ratings through the real server (docs/decisions.md "Feedback and retention", docs/api.md "Feedback"): a second
// rating, what counts, ratings feeding the router's quality, and ratings surviving a restart.
// The endpoint's contract: test/contract/feedback.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config/env.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { buildDeps, closeStorage } from "../../../src/deps.ts";
import { ratingTarget } from "../../../src/routing/feedback-quality.ts";
import { feedbackCalls } from "../../helpers/feedback.ts";
import { post, startTestGw, type TestGw } from "../../helpers/test-gw.ts";

let gw: TestGw;
beforeAll(async () => {
  gw = await startTestGw({ GW_SEMANTIC_EMBEDDER: "off" });
});
afterAll(() => gw.stop());

const MODEL = "openai/gpt-4o-mini";
const { served, rate } = feedbackCalls(() => gw, MODEL);

describe("docs/decisions.md Feedback: a second rating, and what counts", () => {
  test("the last rating replaces the first: the request counts once, with its latest rating", async () => {
    const model = "anthropic/claude-haiku-4-5";
    const id = await served(model);
    const m = gw.deps.catalog.get(model)!;
    const before = gw.deps.feedback.ratings(model, "translation", true, gw.projectId);
    expect((await rate(id, { rating: 1 })).status).toBe(200);
    const low = gw.deps.feedback.quality(m, "translation", true, gw.projectId);
    const res = await rate(id, { rating: 5 });
    expect(await res.json()).toEqual({ object: "feedback", request_id: id, rating: 5 });
    expect(gw.deps.feedback.ratings(model, "translation", true, gw.projectId)).toBe(before + 1);
    expect(gw.deps.feedback.quality(m, "translation", true, gw.projectId)).toBeGreaterThan(low);
    expect(gw.deps.repos.feedback.get(gw.projectId, id)).toBe(5);
  });

  test("a failed request is stored but moves no quality; nor does an exact cache hit (free, so not ratable: issue 15)", async () => {
    const failed = await served("gw-test:upstream_error");
    expect((await rate(failed, { rating: 1 })).status).toBe(200);
    const row = gw.deps.db.query<{ counted: number; model_id: string | null }, [string]>("SELECT counted, model_id FROM feedback WHERE request_id = ?").get(failed);
    expect(row?.counted).toBe(0);

    const model = "google/gemini-2.0-flash";
    const body = { model, messages: [{ role: "user", content: "Translate 'the cache test' into German." }] };
    await (await post(`${gw.url}/chat/completions`, gw.testKey, body)).text();
    const hit = await post(`${gw.url}/chat/completions`, gw.testKey, body);
    expect(hit.headers.get("x-gw-cache")).toBe("exact");
    await hit.text();
    const before = gw.deps.feedback.ratings(model, "translation", true, gw.projectId);
    expect((await rate(hit.headers.get("x-gw-request-id")!, { rating: 2 })).status).toBe(200);
    expect(gw.deps.feedback.ratings(model, "translation", true, gw.projectId)).toBe(before);
  });
});

describe("docs/decisions.md Feedback: ratingTarget", () => {
  const answered = { selectedModel: MODEL, task: "qa", provider: "openai", cache: null, status: 200, endpoint: "chat.completions" };
  test("a model's fresh answer counts; cache hits (exact or semantic), embeddings and failures do not", () => {
    expect(ratingTarget(answered)).toEqual({ modelId: MODEL, task: "qa" });
    expect(ratingTarget({ ...answered, provider: "cache", cache: "exact" })).toBeNull();
    expect(ratingTarget({ ...answered, provider: "cache", cache: "semantic" })).toBeNull();
    expect(ratingTarget({ ...answered, endpoint: "embeddings", task: null })).toBeNull();
    expect(ratingTarget({ ...answered, status: 502 })).toBeNull();
    expect(ratingTarget({ ...answered, selectedModel: null })).toBeNull();
  });
});

describe('ratings feed the quality the router uses (docs/api.md "Feedback")', () => {
  test("low ratings of one model lower its quality in gw-auto's candidates (test-mode pool; the live pool is untouched)", async () => {
    const model = "openai/gpt-4.1-mini";
    const m = gw.deps.catalog.get(model)!;
    const prior = gw.deps.feedback.quality(m, "translation", true, gw.projectId);
    for (let i = 0; i < 12; i++) expect((await rate(await served(model), { rating: 1 })).status).toBe(200);
    const after = gw.deps.feedback.quality(m, "translation", true, gw.projectId);
    expect(after).toBeLessThan(prior - 0.1);
    expect(gw.deps.feedback.quality(m, "translation", false, gw.projectId)).toBe(m.quality.translation);

    const res = await post(`${gw.url}/chat/completions`, gw.testKey, { model: "gw-auto", messages: [{ role: "user", content: "Translate 'see you tomorrow at the station' into Spanish." }] });
    const id = res.headers.get("x-gw-request-id")!;
    await res.text();
    await gw.drain();
    const detail = (await (await fetch(`${gw.url}/requests/${id}`, { headers: { authorization: `Bearer ${gw.testKey}` } })).json()) as {
      task: string; trace: { candidates: Array<{ model: string; quality?: number; rank: number | null }> };
    };
    expect(detail.task).toBe("translation");
    const candidate = detail.trace.candidates.find((c) => c.model === model)!;
    expect(candidate.quality).toBe(after);
  });
});

describe("migration 006: ratings survive a restart", () => {
  test("a gw started on the same data directory loads the same quality", async () => {
    const model = "mistral/mistral-small-latest";
    const m = gw.deps.catalog.get(model);
    if (!m) throw new Error(`catalog lacks ${model}`);
    for (let i = 0; i < 3; i++) await rate(await served(model), { rating: 2 });
    // What a restart loads, read beside the running server (a second server on the directory is
    // refused: docs/availability.md "One owner").
    const config = loadConfig({ port: "0", data: gw.dataDir }, { GW_SEMANTIC_EMBEDDER: "off" });
    const second = { deps: buildDeps(config, { logger: createLogger("silent") }) };
    try {
      expect(second.deps.feedback.ratings(model, "translation", true, gw.projectId)).toBe(gw.deps.feedback.ratings(model, "translation", true, gw.projectId));
      expect(second.deps.feedback.quality(m, "translation", true, gw.projectId)).toBe(gw.deps.feedback.quality(m, "translation", true, gw.projectId));
      expect(second.deps.feedback.quality(m, "translation", true, gw.projectId)).toBeLessThan(m.quality.translation);
    } finally {
      await closeStorage(second.deps);
    }
  });
});
