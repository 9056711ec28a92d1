// Runs the scripted OpenAI upstream from test/ as its own process for benchmarks; prints its URL.
// UPSTREAM_DELAY_MS: before every response's headers; UPSTREAM_CHUNK_DELAY_MS: between stream
// chunks (streams only); UPSTREAM_WORDS: words per answer (a stream's content chunks).
import { startScriptedUpstream } from "../test/helpers/scripted-upstream.ts";

const num = (name: string): number => Number(process.env[name] ?? "0") || 0;
const delayMs = num("UPSTREAM_DELAY_MS");
const chunkDelayMs = num("UPSTREAM_CHUNK_DELAY_MS");
const words = num("UPSTREAM_WORDS");
const content = words > 0 ? Array.from({ length: words }, (_, i) => `word${i}`).join(" ") : undefined;

const upstream = await startScriptedUpstream({
  record: false,
  ...(delayMs > 0 ? { delayMs } : {}),
  ...(chunkDelayMs > 0 ? { chunkDelayMs } : {}),
  ...(content !== undefined ? { content } : {}),
});
console.log(`UPSTREAM ${upstream.url}`);
process.on("SIGTERM", () => upstream.stop().then(() => process.exit(0)));
