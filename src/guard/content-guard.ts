// The PII and secrets policy over a request's texts (docs/guard.md): redacts the findings of a
// `redact` category and reports a `block` category's for the stage to refuse. The report holds
// counts and actions, never a value.
import { GwError } from "../errors/gw-error.ts";
import { CATEGORY, KINDS, NOUN, type Category, type Kind } from "./kinds.ts";
import { Redactor } from "./redact.ts";
import type { TextMap } from "./request-texts.ts";
import { scanTexts } from "./scan.ts";

export type GuardAction = "allow" | "redact" | "block";

export interface GuardPolicy {
  pii: GuardAction;
  secrets: GuardAction;
}

/** trace.guard: the policy applied, what was found (occurrences per kind) and what was done. */
export interface GuardReport {
  pii: GuardAction;
  secrets: GuardAction;
  found: Partial<Record<Kind, number>>;
  action: "redacted" | "blocked";
  /** More findings than MAX_FINDINGS: refused whatever the policy says of their kinds. */
  tooMany?: boolean;
}

/** Findings one request may have redacted. Redacting costs ~2 µs a finding on the event loop; a
 * request past this is refused (400 blocked_by_policy), never sent on half redacted
 * (docs/guard.md, docs/availability.md "Request input"). */
export const MAX_FINDINGS = 10_000;

const actionOf = (v: unknown, fallback: GuardAction): GuardAction => (v === "allow" || v === "redact" || v === "block" ? v : fallback);

/** The project's settings; unset (or null after a PATCH) means the default of docs/api.md "Project policy". */
export function guardPolicyOf(policy: { pii?: unknown; secrets?: unknown }): GuardPolicy {
  return { pii: actionOf(policy.pii, "allow"), secrets: actionOf(policy.secrets, "redact") };
}

export const guardsNothing = (p: GuardPolicy): boolean => p.pii === "allow" && p.secrets === "allow";

/**
 * Runs `visit` twice: once to read every text (normalised, and across adjacent texts: scan.ts),
 * once to hand back each text redacted; `visit` must map the same texts in the same order both
 * times. Returns null when nothing was found, else the report; on `blocked` the texts are left as
 * they came, and the request must not go anywhere (see blockedError).
 */
export function guardTexts(policy: GuardPolicy, visit: (map: TextMap) => void, adjacent = true): GuardReport | null {
  const want = { pii: policy.pii !== "allow", secrets: policy.secrets !== "allow" };
  if (!want.pii && !want.secrets) return null;
  const texts: string[] = [];
  const joins: boolean[] = [];
  visit((text, join = true) => (texts.push(text), joins.push(adjacent && join), text));
  const scan = scanTexts(texts, want, MAX_FINDINGS + 1, joins);
  if (scan.counted.length === 0) return null;
  const found: Partial<Record<Kind, number>> = {};
  let blocked = scan.capped;
  for (const kind of scan.counted) {
    found[kind] = (found[kind] ?? 0) + 1;
    if (policy[CATEGORY[kind]] === "block") blocked = true;
  }
  const report: GuardReport = { pii: policy.pii, secrets: policy.secrets, found, action: blocked ? "blocked" : "redacted" };
  if (scan.capped) report.tooMany = true;
  if (blocked) return report;
  const redactor = new Redactor();
  let t = 0;
  visit((text) => {
    const findings = scan.perText[t++];
    return findings && findings.length > 0 ? redactor.applyLocated(text, findings) : text;
  });
  return report;
}

const listed = (nouns: string[]): string =>
  nouns.length === 1 ? nouns[0]! : `${nouns.slice(0, -1).join(", ")} and ${nouns.at(-1)!}`;

/** 400 blocked_by_policy naming the kinds found and the policy keys that block them; never a value. */
export function blockedError(report: GuardReport): GwError {
  if (report.tooMany) {
    return new GwError(
      "blocked_by_policy",
      `This request holds more than ${MAX_FINDINGS} personal data or secret findings, more than gw redacts in one request. Redact or split it before sending.`,
    );
  }
  const blocking = (k: Kind) => report[CATEGORY[k]] === "block";
  const kinds = KINDS.filter((k) => (report.found[k] ?? 0) > 0 && blocking(k));
  const keys = [...new Set(kinds.map((k) => CATEGORY[k]))].map((c: Category) => `"${c}": "block"`);
  return new GwError(
    "blocked_by_policy",
    `The project's policy blocks this request: it contains ${listed(kinds.map((k) => NOUN[k]))} (policy ${keys.join(", ")}). Remove ${kinds.length > 1 ? "them" : "it"}, or ask the project's admin to change the policy.`,
  );
}
