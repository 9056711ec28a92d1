// Runs the mitata benchmarks a micro file registered: as mitata's own table when run by hand
// (`bun run bench/micro/sse.ts`), or with --json as one `MICRO [...]` line for scenarios/micro.ts.
import { run } from "mitata";

export interface MicroResult {
  name: string;
  /** nanoseconds per iteration */
  avg: number;
  p50: number;
  p99: number;
  error?: string;
}

export async function runMicro(): Promise<void> {
  if (!process.argv.includes("--json")) {
    await run();
    return;
  }
  const { benchmarks } = await run({ format: "quiet", throw: false });
  const results: MicroResult[] = [];
  for (const trial of benchmarks) {
    for (const r of trial.runs) {
      if (r.stats) results.push({ name: r.name, avg: r.stats.avg, p50: r.stats.p50, p99: r.stats.p99 });
      else results.push({ name: r.name, avg: NaN, p50: NaN, p99: NaN, error: String((r.error as { message?: string })?.message ?? r.error) });
    }
  }
  console.log(`MICRO ${JSON.stringify(results)}`);
}

/** One small chat completion (18 words of output), as an upstream would send it. */
export const MICRO_ANSWER = JSON.stringify({
  id: "chatcmpl-micro", object: "chat.completion", created: 1, model: "gpt-4o-mini",
  choices: [{ index: 0, message: { role: "assistant", content: "word ".repeat(18).trim() }, finish_reason: "stop" }],
  usage: { prompt_tokens: 225, completion_tokens: 18, total_tokens: 243 },
});

/** Every fetch of this process answers MICRO_ANSWER at once: the micro benches that run gw's
 * request path measure gw, not a socket. */
export function answerEveryFetch(): void {
  globalThis.fetch = Object.assign(async () => new Response(MICRO_ANSWER, { headers: { "content-type": "application/json" } }), { preconnect: fetch.preconnect });
}
