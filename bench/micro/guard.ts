// mitata: the PII and secrets guard's cost per request (docs/guard.md "Cost"): the guard stage's
// work (scan, redact, report) over a chat request of a system prompt and one user message:
// a typical 900-character prompt without findings and with four, and a 20 KB prompt, under the
// default policy (secrets only) and with `pii: "redact"` too. `bun run bench/micro/guard.ts`.
import { bench, do_not_optimize, group } from "mitata";
import { guardTexts, type GuardPolicy } from "../../src/guard/content-guard.ts";
import { mapChatTexts } from "../../src/guard/request-texts.ts";
import type { ChatRequest } from "../../src/canonical/chat.ts";
import { runMicro } from "./harness.ts";
import { promptOfTokens } from "./prompt.ts";

const SYSTEM = "You are a helpful assistant for the operations team. Answer briefly and cite the notes.";
const base = promptOfTokens(400);
const typical = base.slice(0, 900);
const findings = "Send it to ops.lead@example.com or call +44 20 7946 0958; the card is 4111 1111 1111 1111 and the key sk-proj-Abc123def456ghi789jkl012. ";
const withFindings = findings + typical.slice(0, 900 - findings.length);
let large = "";
while (large.length < 20_000) large += `${base} `;
large = large.slice(0, 20_000);

const DEFAULT: GuardPolicy = { pii: "allow", secrets: "redact" };
const PII: GuardPolicy = { pii: "redact", secrets: "redact" };

/** A fresh request each time: redaction rewrites the strings in place. */
const request = (user: string): ChatRequest => ({ model: "m", messages: [{ role: "system", content: SYSTEM }, { role: "user", content: user }] });
const run = (policy: GuardPolicy, user: string) => {
  const req = request(user);
  return guardTexts(policy, (map) => mapChatTexts(req, map));
};

for (const [policy, label] of [[DEFAULT, "default (secrets: redact)"], [PII, "pii + secrets: redact"]] as const) {
  group(`guard, ${label}`, () => {
    bench(`900 chars, no findings`, () => do_not_optimize(run(policy, typical)));
    bench(`900 chars, 4 findings`, () => do_not_optimize(run(policy, withFindings)));
    bench(`20 KB, no findings`, () => do_not_optimize(run(policy, large)));
  });
}

await runMicro();
