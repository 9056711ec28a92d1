// The floor for any gateway on Bun: Bun.serve forwarding POST /v1/chat/completions to the upstream
// with fetch (body as text, response body streamed back, status and content-type kept), nothing else.
const upstream = process.env.UPSTREAM_URL;
if (!upstream) throw new Error("UPSTREAM_URL is required (base URL including /v1)");
const target = `${upstream}/chat/completions`;

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: Number(process.env.PORT ?? 0),
  async fetch(req) {
    if (req.method !== "POST" || new URL(req.url).pathname !== "/v1/chat/completions") return new Response("not found", { status: 404 });
    const res = await fetch(target, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: req.headers.get("authorization") ?? "" },
      body: await req.text(),
    });
    return new Response(res.body, { status: res.status, headers: { "content-type": res.headers.get("content-type") ?? "application/json" } });
  },
});
console.log(`BARE_PROXY http://127.0.0.1:${server.port}/v1`);
process.on("SIGTERM", () => server.stop(true).then(() => process.exit(0)));
