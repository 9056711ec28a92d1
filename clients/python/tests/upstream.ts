// The scripted OpenAI upstream of gw's own tests (test/helpers/scripted-upstream.ts) as a process
// for the Python client's suite, plus a control port: POST /script {delayMs?, status?, times?}
// scripts the next calls, GET /count answers {calls}. Prints "UPSTREAM <url> CONTROL <url>".
import { startScriptedUpstream } from "../../../test/helpers/scripted-upstream.ts";

const upstream = await startScriptedUpstream({ record: false });
const control = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const path = new URL(req.url).pathname;
    if (req.method === "POST" && path === "/script") {
      const b = (await req.json()) as { delayMs?: number; status?: number; times?: number };
      upstream.script({ ...(b.delayMs ? { delayMs: b.delayMs } : {}), ...(b.status ? { status: b.status } : {}) }, b.times ?? 1);
      return Response.json({ ok: true });
    }
    if (path === "/count") return Response.json({ calls: upstream.callCount("/v1/chat/completions") });
    return new Response("not found", { status: 404 });
  },
});
console.log(`UPSTREAM ${upstream.url} CONTROL http://127.0.0.1:${control.port}`);
const stop = () => { void control.stop(true); void upstream.stop().then(() => process.exit(0)); };
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
