// Hostile request bodies (seeded) for bench/hostile/request-input.ts and the hostile tests: each
// legal or nearly legal, up to the 10 MiB body limit.
import { HOSTILE_TEXTS, base64, prose } from "./inputs.ts";

const MIB = 1024 * 1024;
export type Body = { path: "/chat/completions" | "/embeddings" | "/responses"; body: string };

const chat = (content: string, extra: Record<string, unknown> = {}): Body => ({
  path: "/chat/completions",
  body: JSON.stringify({ model: "gw-auto", messages: [{ role: "user", content }], ...extra }),
});

/** A JSON schema nested `depth` objects deep (each level is two brackets of the body). */
function deepSchema(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < depth; i++) schema = { type: "object", properties: { a: schema }, required: ["a"] };
  return schema;
}

export const HOSTILE_BODIES: Record<string, () => Body> = {
  ...Object.fromEntries(Object.entries(HOSTILE_TEXTS).map(([name, text]) => [name, () => chat(text())])),
  "9 MiB prose with e-mails and keys": () =>
    chat(prose(9 * MIB).replace(/ the /g, (m, at: number) => (at % 97 === 0 ? " ann@example.com sk-abcdefghijklmnopqrstuvwx " : m))),
  "9 MiB digits and separators (card/IBAN-like)": () => chat("4111 1111 1111 1111 DE89 3704 0044 0532 0130 00 ".repeat(Math.floor((9 * MIB) / 48))),
  "100k messages": () => ({
    path: "/chat/completions",
    body: JSON.stringify({ messages: Array.from({ length: 100_000 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `turn ${i}` })) }),
  }),
  "100k content parts": () => chat(Array.from({ length: 100_000 }, (_, i) => ({ type: "text", text: `part ${i} ` })) as never),
  "128 tools with 60 KB schemas": () =>
    chat("call a tool", {
      tools: Array.from({ length: 128 }, (_, i) => ({
        type: "function",
        function: { name: `tool_${i}`, parameters: { type: "object", properties: Object.fromEntries(Array.from({ length: 2000 }, (_, k) => [`p${k}`, { type: "string" }])) } },
      })),
    }),
  "response_format nested 30 levels": () => chat("answer", { response_format: { type: "json_schema", json_schema: { name: "deep", schema: deepSchema(30) } } }),
  "response_format 200k properties": () =>
    chat("answer", {
      response_format: { type: "json_schema", json_schema: { name: "wide", schema: { type: "object", properties: Object.fromEntries(Array.from({ length: 200_000 }, (_, k) => [`p${k}`, { type: "integer" }])) } } },
    }),
  "brackets nested 1M deep": () => ({ path: "/chat/completions", body: `{"messages":${"[".repeat(1_000_000)}${"]".repeat(1_000_000)}}` }),
  "object with 500k keys": () => chat("hi", { extra: Object.fromEntries(Array.from({ length: 500_000 }, (_, k) => [`k${k}`, k])) }),
  "embeddings: 2048 x 4 KB base64": () => ({
    path: "/embeddings",
    body: JSON.stringify({ input: Array.from({ length: 2048 }, (_, i) => base64(4096, i + 10)) }),
  }),
  "embeddings: 256 x 4 KB base64": () => ({
    path: "/embeddings",
    body: JSON.stringify({ input: Array.from({ length: 256 }, (_, i) => base64(4096, i + 10)) }),
  }),
  "embeddings: one 9 MiB text": () => ({ path: "/embeddings", body: JSON.stringify({ input: "a".repeat(9 * MIB) }) }),
  "responses: 9 MiB input": () => ({ path: "/responses", body: JSON.stringify({ input: base64(9 * MIB, 5) }) }),
  "lone surrogates and combining marks": () => chat("\ud800a\u0301\u0301\u0301\udfff".repeat(Math.floor((9 * MIB) / 12))),
};
