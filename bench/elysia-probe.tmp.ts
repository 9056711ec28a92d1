import { Elysia } from "elysia";
const target = `${process.env.UPSTREAM_URL}/chat/completions`;
const app = new Elysia().post("/v1/chat/completions", async ({ request }) => {
  const res = await fetch(target, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: request.headers.get("authorization") ?? "" },
    body: await request.text(),
  });
  return new Response(res.body, { status: res.status, headers: { "content-type": res.headers.get("content-type") ?? "application/json" } });
}, { parse: "none" }).listen({ port: Number(process.env.PORT), hostname: "127.0.0.1" });
console.log("ELYSIA", app.server?.port);
