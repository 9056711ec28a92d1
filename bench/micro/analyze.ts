// mitata: the analyzer alone (issue 19 item 4): the one-pass word scan (`scan`) and the whole
// `analyzeRequest`, for a short question, a typical instruction, the bench's 900-character prompt (as
// wrk sends it, with its per-request prefix) and 1,000- and 4,000-token prompts.
import { bench, do_not_optimize, group } from "mitata";
import { analyzeRequest } from "../../src/analysis/analyzer.ts";
import { scan } from "../../src/analysis/scan.ts";
import type { ChatRequest } from "../../src/canonical/chat.ts";
import { runMicro } from "./harness.ts";
import { promptOfTokens } from "./prompt.ts";

const prompts = [
  { name: "short question", text: "What is the capital of France?" },
  { name: "typical instruction", text: "Write a Python function that parses ISO dates and returns the weekday; include tests." },
  { name: "900 characters (the load scenarios' prompt)", text: "Summarise the following note for a colleague. ".repeat(20).slice(0, 900) },
  { name: "900 characters with wrk's prefix", text: `738125069-4211 ${"Summarise the following note for a colleague. ".repeat(20).slice(0, 900)}` },
  { name: "1,000 tokens", text: promptOfTokens(1_000) },
  { name: "4,000 tokens", text: promptOfTokens(4_000) },
];

group("analyzer", () => {
  for (const p of prompts) {
    const req: ChatRequest = { model: "gw-auto", messages: [{ role: "user", content: p.text }], max_tokens: 256 };
    bench(`scan, ${p.name}`, () => do_not_optimize(scan(p.text)));
    bench(`analyzeRequest, ${p.name}`, () => do_not_optimize(analyzeRequest(req, { inputTokensBound: p.text.length })));
  }
});

await runMicro();
