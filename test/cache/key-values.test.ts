// cacheKeys (src/cache/key.ts) keeps its values: entries stored by earlier versions must keep
// hitting, so the exact keys and partitions of a few varied requests are pinned here (docs/cache.md "Keys").
import { describe, expect, test } from "bun:test";
import { cacheKeys, type KeyContext } from "../../src/cache/key.ts";
import type { ChatRequest } from "../../src/canonical/chat.ts";

const ctx: KeyContext = {
  projectId: "proj_golden", mode: "live", scope: "team-a",
  policy: { pii: "redact", allowed_providers: ["openai", "anthropic"], retention: "minimal" },
};

const cases: Array<[string, ChatRequest, string, string]> = [
  ["one user message", { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "Name a river." }], max_tokens: 64 },
    "a6b55c66f8f629f141b6b83ebf1e8e6d629712059235f728fc977e7ee1719b55", "2167ac750ea1bad3add81bf25de83c325fa1a0c33d0b071d8c9cddf7bb4f2fba"],
  ["system and user, whitespace to collapse", { model: "gw-auto", messages: [{ role: "system", content: "Be  brief.\n" }, { role: "user", content: " Name a river. " }], temperature: 0.2 },
    "22c102987b8e484b1014040780061b6aed9d518c6d12d04ea3c10e287d83e417", "18b2a2f70847f360de3541c2bac63d38b9af77eb23769d0dd3aa35788fa71087"],
  ["multi-turn: names, tool calls, parts, messages after the last user", {
    model: "openai/gpt-4o", seed: 7, tools: [{ type: "function", function: { name: "f", parameters: { b: 1, a: 2 } } }],
    messages: [
      { role: "system", content: "sys" }, { role: "user", content: "first", name: "ann" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] },
      { role: "tool", content: "42", tool_call_id: "c1" },
      { role: "user", content: [{ type: "text", text: "second  part" }, { type: "image_url", image_url: { url: "http://x/y.png" } }] },
      { role: "assistant", content: "ok" },
    ],
  } as ChatRequest,
  "9e4c1f961f2e51c137d8a1e062e4ac4092c0d078419dfcd8b6936f32ca7507d6", "5880a571448ffc4f3bec5f9f977766edceef8637b4c382f6b939969769bebb52"],
  ["no user message: the partition is the exact key", { model: "openai/gpt-4o-mini", messages: [{ role: "system", content: "only system" }] },
    "6cb0471c83b2165ba34cd19cbb7e1b7bbcce12c5b8e12e68929458ea56b70292", "6cb0471c83b2165ba34cd19cbb7e1b7bbcce12c5b8e12e68929458ea56b70292"],
  ["wide characters, lone surrogates and NUL in the text", {
    model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "日本語 😀 lone \ud800 and \udc00 end\u0000nul" }], stop: ["\n"], response_format: { type: "json_object" },
  } as ChatRequest,
  "57a1c6707d0e41848fdff5632688b780af9256f6fca4054de7e6a84a205dbbfc", "50baa80b4855eb41e4563f7be212139b71b2ebc8912304f2481c467dc3204b3c"],
];

describe("cache keys keep their values (docs/cache.md \"Keys\")", () => {
  for (const [name, req, exact, partition] of cases) {
    test(name, () => {
      expect(cacheKeys(req, ctx)).toEqual({ exact, partition });
    });
  }
});
