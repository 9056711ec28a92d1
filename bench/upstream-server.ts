// Runs the scripted OpenAI upstream from test/ as its own process for benchmarks; prints its URL.
import { startScriptedUpstream } from "../test/helpers/scripted-upstream.ts";

const delayMs = Number(process.env.UPSTREAM_DELAY_MS ?? "0");
const upstream = await startScriptedUpstream({ record: false, ...(delayMs > 0 ? { delayMs } : {}) });
console.log(`UPSTREAM ${upstream.url}`);
process.on("SIGTERM", () => upstream.stop().then(() => process.exit(0)));
