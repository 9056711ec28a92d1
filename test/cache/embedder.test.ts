// The semantic cache's embedders (docs/semantic-cache.md "Embedders"; issue 7 item 4): the model-free
// n-gram one, the provider adapter, the factory, and the USE-lite client over a fake worker; the
// real USE-lite model once, in a few seconds.
import { describe, expect, test } from "bun:test";
import { createEmbedder } from "../../src/cache/embedder/create-embedder.ts";
import { NgramEmbedder } from "../../src/cache/embedder/ngram.ts";
import { ProviderEmbedder } from "../../src/cache/embedder/provider.ts";
import { dot } from "../../src/cache/embedder/types.ts";
import { UseLiteEmbedder } from "../../src/cache/embedder/use-lite.ts";

const norm = (v: Float32Array): number => Math.sqrt(dot(v, v));
/** The rejection message, or "resolved". (`expect(p).rejects` waits in a way that holds back worker
 * messages, so a rejection that comes from the worker would arrive after the call's timeout.) */
const failure = (p: Promise<unknown>): Promise<string> => p.then(() => "resolved", (err: unknown) => String(err));
const fakeWorker = new URL("./fake-use-worker.ts", import.meta.url).href;

describe("hashed n-gram embedder (4.13: model-free option)", () => {
  test("deterministic unit vectors of the configured size", async () => {
    const e = new NgramEmbedder();
    const [a, b] = await e.embed(["How do I reset my password?", "How do I reset my password?"]);
    expect(e.dimensions).toBe(512);
    expect(a?.length).toBe(512);
    expect(norm(a!)).toBeCloseTo(1, 5);
    expect([...a!]).toEqual([...b!]);
    expect(new NgramEmbedder(256).embedOne("hello world").length).toBe(256);
  });

  test("shared wording scores above unrelated text; empty text is a zero vector", () => {
    const e = new NgramEmbedder();
    const q = e.embedOne("How do I reset my password?");
    expect(dot(q, e.embedOne("How can I reset my password?"))).toBeGreaterThan(dot(q, e.embedOne("Best pizza in Naples")) + 0.3);
    expect(norm(e.embedOne(""))).toBe(0);
  });
});

describe("provider embedder (4.13: an embedding model through gw's providers)", () => {
  test("normalises what the provider returns", async () => {
    const e = new ProviderEmbedder(async (texts) => texts.map(() => [3, 4]), 2, "text-embedding-test");
    const [v] = await e.embed(["x"]);
    expect(e.name).toBe("provider:text-embedding-test");
    expect([...v!].map((x) => Number(x.toFixed(5)))).toEqual([0.6, 0.8]);
  });

  test("refuses a wrong count or size of vectors", async () => {
    expect(await failure(new ProviderEmbedder(async () => [[1, 0]], 2, "m").embed(["a", "b"]))).toContain("1 vectors for 2 texts");
    expect(await failure(new ProviderEmbedder(async () => [[1, 0, 0]], 2, "m").embed(["a"]))).toContain("3 dimensions");
  });
});

describe("createEmbedder (4.13: the embedder is configuration)", () => {
  test("builds each kind", async () => {
    expect(createEmbedder("ngram").name).toBe("ngram-512");
    expect(createEmbedder("provider", { provider: { embed: async () => [], dimensions: 8, model: "m" } }).dimensions).toBe(8);
    const use = createEmbedder("use");
    expect(use.name).toBe("use-lite");
    await use.close();
    expect(() => createEmbedder("provider")).toThrow("needs an embed function");
  });
});

describe("USE-lite client (4.13: embeddings off the event loop, a slow one is a miss)", () => {
  test("calls waiting behind a batch go to the worker together, in order", async () => {
    const e = new UseLiteEmbedder({ workerUrl: fakeWorker, maxBatch: 8 });
    await e.ready();
    const first = e.embed(["slow:50"]);
    const rest = [e.embed(["a"]), e.embed(["bb", "ccc"]), e.embed(["dddd"])];
    await first;
    const vectors = await Promise.all(rest);
    expect(vectors.map((vs) => vs.map((v) => v.indexOf(1)))).toEqual([[1], [2, 3], [4]]);
    // One batch for the slow call, one for the three behind it.
    expect(e.compute.snapshot().calls).toBe(2);
    expect(e.compute.snapshot().max).toBe(4);
    await e.close();
  });

  test("a call past its timeout rejects while the worker keeps going; later calls still answer", async () => {
    const e = new UseLiteEmbedder({ workerUrl: fakeWorker, timeoutMs: 20 });
    await e.ready();
    const late = [failure(e.embed(["slow:200"])), failure(e.embed(["queued behind"]))];
    expect(await Promise.all(late)).toEqual([expect.stringContaining("timed out"), expect.stringContaining("timed out")]);
    await e.idle();
    expect((await e.embed(["after"]))[0]?.length).toBe(512);
    expect(e.latency.snapshot().timeouts).toBe(2);
    await e.close();
  });

  test("a full queue refuses at once; a failed batch rejects only its calls", async () => {
    const e = new UseLiteEmbedder({ workerUrl: fakeWorker, maxQueue: 2 });
    await e.ready();
    const busy = e.embed(["slow:30"]);
    const queued = e.embed(["x", "y"]);
    expect(await failure(e.embed(["z"]))).toContain("queue is full");
    await Promise.all([busy, queued]);
    expect(await failure(e.embed(["fail"]))).toContain("fake failure");
    expect((await e.embed(["ok"])).length).toBe(1);
    await e.close();
  });

  test("a crashed worker fails its calls and is replaced; three crashes in a row give up", async () => {
    const e = new UseLiteEmbedder({ workerUrl: fakeWorker });
    expect(await failure(e.embed(["crash"]))).toContain("worker failed");
    expect((await e.embed(["fine"])).length).toBe(1);
    expect(await failure(e.embed(["crash"]))).toContain("worker failed");
    expect(await failure(e.embed(["crash"]))).toContain("worker failed");
    expect(await failure(e.embed(["crash"]))).toContain("worker failed");
    expect(await failure(e.embed(["fine"]))).toContain("unavailable");
    await e.close();
  });

  test("a closed embedder rejects", async () => {
    const e = new UseLiteEmbedder({ workerUrl: fakeWorker });
    await e.close();
    expect(await failure(e.embed(["x"]))).toContain("closed");
  });
});

describe("USE-lite model (4.13: a real sentence model in the binary)", () => {
  test("paraphrases score higher than unrelated sentences; 512-dim unit vectors", async () => {
    const e = new UseLiteEmbedder({ timeoutMs: 15_000 });
    const [a, b, c] = await e.embed(["How do I reset my password?", "What is the way to change my password?", "The weather in Lisbon is sunny today."]);
    expect(a?.length).toBe(512);
    expect(norm(a!)).toBeCloseTo(1, 4);
    expect(dot(a!, b!)).toBeGreaterThan(0.8);
    expect(dot(a!, b!)).toBeGreaterThan(dot(a!, c!) + 0.5);
    await e.close();
  }, 15_000);
});
