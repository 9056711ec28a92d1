// The token engine's worker (src/optimization/engine-worker.ts, worker.ts): the same result as the
// engine on the request thread; a stuck, broken or full worker answers with its reason, never throws;
// an idle worker does not hold the process open.
import { describe, expect, test } from "bun:test";
import type { ChatRequest } from "../../src/canonical/chat.ts";
import { optimizeRequest, stageContext } from "../../src/optimization/engine.ts";
import { EngineWorker } from "../../src/optimization/engine-worker.ts";
import { optimizationOptionsOf } from "../../src/optimization/options.ts";
import { STAGES } from "../../src/optimization/stages/index.ts";
import type { OptimizationTrace } from "../../src/optimization/types.ts";

const rows = Array.from({ length: 60 }, (_, i) => ({ id: `ORD-${8000 + i}`, total: 12.5 + i, email: `c${i}@shop.example` }));
const request = (): ChatRequest => ({
  model: "gpt-4o",
  messages: [
    { role: "system", content: "You answer questions about orders." },
    { role: "user", content: `The export:\n${JSON.stringify({ rows }, null, 2)}` },
    { role: "user", content: "Which order totals 20.5?" },
  ],
});
const options = (mode = "safe") => optimizationOptionsOf({ mode }, undefined, 3);
const withoutMs = (t: OptimizationTrace) => ({ ...t, stages: t.stages.map(({ ms: _ms, ...s }) => s) });
const here = (name: string) => new URL(`./workers/${name}.ts`, import.meta.url).href;

describe("the engine's worker", () => {
  test("answers what the engine answers on the request thread", async () => {
    const worker = new EngineWorker();
    try {
      const req = request();
      const local = optimizeRequest(req, stageContext(req, options(), 128_000), STAGES);
      const out = await worker.optimize(request(), options(), 128_000);
      if (!out.ok) throw new Error(`worker failed: ${out.reason} ${out.error ?? ""}`);
      expect(out.request).toEqual(local.request);
      expect(withoutMs(out.trace)).toEqual(withoutMs(local.trace));
      expect(local.trace.stages[0]).toMatchObject({ name: "json_minify", applied: true });
      // Nothing to change: no request comes back, the caller keeps its own.
      const small: ChatRequest = { model: "gpt-4o", messages: [{ role: "user", content: "Hello there" }] };
      const same = await worker.optimize(small, options(), null);
      expect(same).toMatchObject({ ok: true, request: null });
      expect(worker.pending()).toBe(0);
    } finally {
      worker.close();
    }
  });

  test("a job the worker does not answer in time resolves as a time-out; a full queue as busy", async () => {
    const worker = new EngineWorker({ url: here("silent"), timeoutMs: 50, maxPending: 1 });
    try {
      const first = worker.optimize(request(), options(), null);
      expect(await worker.optimize(request(), options(), null)).toEqual({ ok: false, reason: "busy" });
      expect(await first).toEqual({ ok: false, reason: "timeout" });
      expect(worker.pending()).toBe(0);
    } finally {
      worker.close();
    }
  });

  test("a worker that fails resolves its jobs as errors, and is given up on after three failures", async () => {
    const worker = new EngineWorker({ url: here("broken") });
    try {
      for (let i = 0; i < 3; i++) expect(await worker.optimize(request(), options(), null)).toMatchObject({ ok: false, reason: "error" });
      expect(await worker.optimize(request(), options(), null)).toEqual({ ok: false, reason: "error", error: "the token engine's worker is unavailable" });
    } finally {
      worker.close();
    }
    // A binary built without the worker as an entry point: the module is not there.
    const missing = new EngineWorker({ url: here("not-there") });
    try {
      expect(await missing.optimize(request(), options(), null)).toMatchObject({ ok: false, reason: "error" });
    } finally {
      missing.close();
    }
  });

  test("an idle worker does not keep the process alive", async () => {
    const script = `
      import { engineWorker } from ${JSON.stringify(new URL("../../src/optimization/engine-worker.ts", import.meta.url).pathname)};
      const out = await engineWorker().optimize(${JSON.stringify(request())}, ${JSON.stringify(options())}, null);
      console.log(out.ok ? out.trace.stages[0].applied : out.reason);`;
    const proc = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    expect(await proc.exited).toBe(0);
    expect((await new Response(proc.stdout).text()).trim()).toBe("true");
  });
});
