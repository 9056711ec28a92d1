// mitata: token counting on a 1,000-token prompt: the tokenizer (countTextTokens, countMessageTokens)
// against the strict byte bound routing uses on the request path (boundMessageTokens).
import { bench, do_not_optimize, group } from "mitata";
import { boundMessageTokens, countMessageTokens, countTextTokens } from "../../src/analysis/tokens.ts";
import type { ChatMessage } from "../../src/canonical/chat.ts";
import { runMicro } from "./harness.ts";
import { promptOfTokens } from "./prompt.ts";

const prompt = promptOfTokens(1_000);
const messages: ChatMessage[] = [
  { role: "system", content: "You are a helpful assistant. Answer briefly." },
  { role: "user", content: prompt },
];

group(`token counting, ${countTextTokens(prompt)}-token prompt (${prompt.length} chars)`, () => {
  bench("countTextTokens (gpt-tokenizer, o200k_base)", () => do_not_optimize(countTextTokens(prompt)));
  bench("countMessageTokens (2 messages)", () => do_not_optimize(countMessageTokens(messages)));
  bench("boundMessageTokens (byte bound, 2 messages)", () => do_not_optimize(boundMessageTokens(messages)));
});

await runMicro();
