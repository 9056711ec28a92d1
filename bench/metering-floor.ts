// The floor for a gateway that meters: bare-proxy.ts plus what any gateway that counts tokens must do
// with each request (read the body as JSON, pick the model, authorise by a key in a Map) and each
// answer (read it whole, parse it for `usage`, serialise one small log record), nothing else.
const upstream = process.env.UPSTREAM_URL;
if (!upstream) throw new Error("UPSTREAM_URL is required (base URL including /v1)");
const target = `${upstream}/chat/completions`;
const keys = new Map([["Bearer floor", "project"]]);
let logged = 0;

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: Number(process.env.PORT ?? 0),
  async fetch(req) {
    if (req.method !== "POST" || new URL(req.url).pathname !== "/v1/chat/completions") return new Response("not found", { status: 404 });
    const project = keys.get(req.headers.get("authorization") ?? "") ?? "anonymous";
    const text = await req.text();
    const body = JSON.parse(text) as { model?: string };
    const res = await fetch(target, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer upstream" },
      body: text,
    });
    const answer = await res.text();
    const usage = (JSON.parse(answer) as { usage?: { prompt_tokens?: number; completion_tokens?: number } }).usage;
    // One log record per request, as a gateway would hand to its writer.
    const record = JSON.stringify({ project, model: body.model, status: res.status, in: usage?.prompt_tokens ?? 0, out: usage?.completion_tokens ?? 0 });
    logged += record.length;
    return new Response(answer, { status: res.status, headers: { "content-type": "application/json" } });
  },
});
console.log(`METERING_FLOOR http://127.0.0.1:${server.port}/v1`);
process.on("SIGTERM", () => server.stop(true).then(() => process.exit(0)));
export {};
