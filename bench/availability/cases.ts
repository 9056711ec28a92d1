// Hostile-but-legal (and plainly bad) requests for the availability figures (docs/availability.md):
// long unbroken runs, base64, repeated tokens, unicode edge cases, deep nesting, huge arrays,
// oversized labels and bodies. Seeded, so every run sends the same bytes.
const MIB = 1024 * 1024;

export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

function base64(bytes: number, seed: number): string {
  const r = rng(seed);
  const raw = new Uint8Array(Math.ceil((bytes * 3) / 4));
  for (let i = 0; i < raw.length; i++) raw[i] = Math.floor(r() * 256);
  return Buffer.from(raw).toString("base64").slice(0, bytes);
}

export type KeyKind = "live" | "test";

export interface HostileCase {
  name: string;
  key: KeyKind;
  path: "/chat/completions" | "/responses" | "/embeddings";
  /** The body, or a stream of chunks sent without Content-Length. */
  body: () => string | { chunked: string[] };
  headers?: Record<string, string>;
}

/** Texts of about `bytes` bytes, each a known trouble for tokenizers, regexes or parsers. */
export const TEXTS: Record<string, (bytes: number, seed: number) => string> = {
  letters: (n) => "a".repeat(n),
  base64: (n, seed) => base64(n, seed),
  "repeated token": (n) => "hello ".repeat(Math.floor(n / 6)),
  digits: (n) => "7".repeat(n),
  cjk: (n) => "漢字仮名交じり文".repeat(Math.floor(n / 24)),
  "emoji zwj": (n) => "👩‍👩‍👧‍👦".repeat(Math.floor(n / 25)),
  "combining marks": (n) => ("e" + "\u0301".repeat(50)).repeat(Math.floor(n / 101)),
  punctuation: (n) => "!?".repeat(Math.floor(n / 2)),
  "email-ish": (n) => "a@b.".repeat(Math.floor(n / 4)),
  "card-ish digits": (n) => "4111 1111 1111 111".repeat(Math.floor(n / 18)),
};

const chat = (content: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model: "gw-auto", messages: [{ role: "user", content }], ...extra });

function nested(depth: number): string {
  return `${'{"type":"object","properties":{"a":'.repeat(depth)}{"type":"string"}${"}}".repeat(depth)}`;
}

/** The single-request cases: each at or near the 10 MiB body limit, live and test keys. */
export function singleCases(): HostileCase[] {
  const big = 9 * MIB;
  const cases: HostileCase[] = [];
  for (const [name, text] of Object.entries(TEXTS)) {
    for (const key of ["test", "live"] as const) cases.push({ name: `9 MiB ${name}`, key, path: "/chat/completions", body: () => chat(text(big, 7)) });
  }
  cases.push(
    { name: "150 KB unbroken run", key: "live", path: "/chat/completions", body: () => chat("x".repeat(150_000)) },
    { name: "9 MiB letters, streamed", key: "live", path: "/chat/completions", body: () => chat("a".repeat(big), { stream: true }) },
    { name: "9 MiB letters, /responses", key: "test", path: "/responses", body: () => JSON.stringify({ model: "gw-auto", input: "a".repeat(big) }) },
    { name: "2,048 x 4 KB embeddings", key: "live", path: "/embeddings", body: () => JSON.stringify({ input: Array.from({ length: 2048 }, (_, i) => `${i} ` + "b".repeat(4000)) }) },
    { name: "2,048 x 4 KB embeddings", key: "test", path: "/embeddings", body: () => JSON.stringify({ input: Array.from({ length: 2048 }, (_, i) => `${i} ` + "b".repeat(4000)) }) },
    { name: "200k messages", key: "test", path: "/chat/completions", body: () => JSON.stringify({ messages: Array.from({ length: 200_000 }, (_, i) => ({ role: "user", content: `m${i}` })) }) },
    { name: "response_format nested 100k deep", key: "live", path: "/chat/completions", body: () => chat("hi", { response_format: { type: "json_schema", json_schema: { name: "x", schema: "__S__" } } }).replace('"__S__"', nested(100_000)) },
    { name: "arrays nested 1M deep", key: "test", path: "/chat/completions", body: () => chat("hi").slice(0, -1) + `,"metadata":${"[".repeat(1_000_000)}${"]".repeat(1_000_000)}}` },
    { name: "3 MB workflow id", key: "test", path: "/chat/completions", body: () => chat("hi", { gw: { workflow_id: "w".repeat(3_000_000) } }) },
    { name: "metadata with 1 MB values", key: "test", path: "/chat/completions", body: () => chat("hi", { metadata: { a: "v".repeat(1_000_000) } }) },
    { name: "5,000 tools", key: "live", path: "/chat/completions", body: () => chat("hi", { tools: Array.from({ length: 5000 }, (_, i) => ({ type: "function", function: { name: `f${i}`, parameters: { type: "object", properties: { x: { type: "string", description: "d".repeat(1500) } } } } })) }) },
    { name: "invalid JSON, 9 MiB", key: "test", path: "/chat/completions", body: () => chat("a".repeat(big)).slice(0, -2) },
    { name: "12 MiB with Content-Length", key: "test", path: "/chat/completions", body: () => chat("a".repeat(12 * MIB)) },
    { name: "40 MiB chunked", key: "test", path: "/chat/completions", body: () => ({ chunked: Array.from({ length: 40 }, (_, i) => (i === 0 ? '{"messages":[{"role":"user","content":"' : "") + "a".repeat(MIB)) }) },
    { name: "lone surrogates, 9 MiB", key: "test", path: "/chat/completions", body: () => chat("").replace('"content":""', `"content":"${"\\ud800".repeat(Math.floor(big / 6))}"`) },
  );
  return cases;
}

/** One request of the 10,000-request mix: a seeded pick of text kind, size (1 KB to 256 KB, log
 * uniform), key, endpoint, stream flag and label abuse. */
export function mixedCase(i: number): HostileCase {
  const r = rng(1000 + i);
  const kinds = Object.keys(TEXTS);
  const kind = kinds[Math.floor(r() * kinds.length)]!;
  const bytes = Math.round(1024 * Math.pow(256, r()));
  const text = TEXTS[kind]!(bytes, i);
  const key: KeyKind = r() < 0.5 ? "test" : "live";
  const roll = r();
  const stream = r() < 0.3;
  const name = `${kind} ${bytes} B`;
  if (roll < 0.1) return { name: `${name} /embeddings`, key, path: "/embeddings", body: () => JSON.stringify({ input: [text, text.slice(0, 100)] }) };
  if (roll < 0.2) return { name: `${name} /responses`, key, path: "/responses", body: () => JSON.stringify({ input: text, stream }) };
  if (roll < 0.25) return { name: "long label", key, path: "/chat/completions", body: () => chat("hi", { gw: { workflow_id: text } }) };
  if (roll < 0.3) return { name: "deep nesting", key, path: "/chat/completions", body: () => chat("hi").slice(0, -1) + `,"metadata":{"a":${"[".repeat(bytes)}${"]".repeat(bytes)}}}` };
  if (roll < 0.35) return { name: "broken JSON", key, path: "/chat/completions", body: () => chat(text).slice(0, -3) };
  return { name, key, path: "/chat/completions", body: () => chat(text, { stream, user: `u${i % 97}` }), headers: { "x-gw-cache-scope": `s${i}` } };
}

/** An ordinary request of the same shapes as the mix (for the warm-up before "idle"). */
export function ordinaryCase(i: number): HostileCase {
  const r = rng(50_000 + i);
  const key: KeyKind = r() < 0.5 ? "test" : "live";
  const stream = r() < 0.3;
  const roll = r();
  const text = `Please summarise note ${i}: the quarterly figures rose, costs fell, and the team shipped two releases.`;
  if (roll < 0.1) return { name: "ordinary /embeddings", key, path: "/embeddings", body: () => JSON.stringify({ input: [text] }) };
  if (roll < 0.2) return { name: "ordinary /responses", key, path: "/responses", body: () => JSON.stringify({ input: text, stream }) };
  return { name: "ordinary chat", key, path: "/chat/completions", body: () => chat(text, { stream, user: `u${i % 97}` }), headers: { "x-gw-cache-scope": `s${i}` } };
}
