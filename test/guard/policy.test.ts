// The policy over a request's texts (docs/api.md "Project policy" `pii`, `secrets`; docs/guard.md):
// placeholders numbered per kind and stable per value, the defaults, block reports and their message, and the
// stage writing state.guard (trace.guard) with counts only.
import { describe, expect, test } from "bun:test";
import { blockedError, guardPolicyOf, guardTexts, type GuardPolicy } from "../../src/guard/content-guard.ts";
import { mapChatTexts } from "../../src/guard/request-texts.ts";
import { Redactor } from "../../src/guard/redact.ts";
import { detect } from "../../src/guard/detect.ts";
import { guard } from "../../src/pipeline/stages/guard.ts";
import { newState } from "../../src/pipeline/state.ts";
import { SpanRecorder } from "../../src/observability/trace.ts";
import type { AuthContext } from "../../src/auth/api-keys.ts";
import { compileRules } from "../../src/auth/project-rules.ts";
import type { Policy } from "../../src/schema/admin.ts";
import type { ApiKey } from "../../src/store/repos/api-keys.ts";
import type { Project } from "../../src/store/repos/projects.ts";
import type { ChatRequest } from "../../src/canonical/chat.ts";
import type { Deps } from "../../src/pipeline/deps.ts";
import { GwError } from "../../src/errors/gw-error.ts";
import { SAMPLES } from "./samples.ts";

const redact = (text: string, r = new Redactor()) => r.apply(text, detect(text, { pii: true, secrets: true }));
/** Runs the guard over plain texts, as the stage does over a request's. */
function over(policy: GuardPolicy, texts: string[]) {
  const out = [...texts];
  const report = guardTexts(policy, (map) => out.forEach((t, i) => (out[i] = map(t))));
  return { out, report };
}

describe("placeholders", () => {
  test("typed and numbered per kind; the same value keeps its placeholder", () => {
    expect(redact("a@example.com, b@example.com, A@Example.com, +44 20 7946 0958 and +44-20-7946-0958"))
      .toBe("[EMAIL_1], [EMAIL_2], [EMAIL_1], [PHONE_1] and [PHONE_1]");
  });

  test("across the texts of one request, not across requests", () => {
    const r = new Redactor();
    expect(redact("to a@example.com", r)).toBe("to [EMAIL_1]");
    expect(redact("cc b@example.com and a@example.com", r)).toBe("cc [EMAIL_2] and [EMAIL_1]");
    expect(redact("to b@example.com")).toBe("to [EMAIL_1]");
  });

  for (const s of SAMPLES) {
    test(`${s.name} becomes ${s.placeholder}`, () => {
      const out = redact(s.text);
      expect(out).toBe(s.text.replace(s.value, s.placeholder));
      expect(out).not.toContain(s.value);
    });
  }
});

describe('the policy keys (docs/api.md "Project policy")', () => {
  test("defaults: pii allow, secrets redact; unknown values fall back to them", () => {
    expect(guardPolicyOf({})).toEqual({ pii: "allow", secrets: "redact" });
    expect(guardPolicyOf({ pii: null, secrets: "nope" })).toEqual({ pii: "allow", secrets: "redact" });
    expect(guardPolicyOf({ pii: "block", secrets: "allow" })).toEqual({ pii: "block", secrets: "allow" });
  });

  test("secrets are redacted by default while personal data is allowed (and not even scanned)", () => {
    const { out, report } = over(guardPolicyOf({}), ["Mail a@example.com the key AKIAIOSFODNN7EXAMPLE"]);
    expect(out).toEqual(["Mail a@example.com the key [SECRET_1]"]);
    expect(report).toEqual({ pii: "allow", secrets: "redact", found: { secret: 1 }, action: "redacted" });
  });

  test("nothing found: no report; allow everywhere: texts untouched", () => {
    expect(over(guardPolicyOf({ pii: "redact" }), ["Summarise the release notes of 2.4.1."]).report).toBeNull();
    expect(over({ pii: "allow", secrets: "allow" }, ["a@example.com AKIAIOSFODNN7EXAMPLE"])).toEqual({ out: ["a@example.com AKIAIOSFODNN7EXAMPLE"], report: null });
  });

  test("block wins over redact; the report counts occurrences per kind", () => {
    const { report } = over({ pii: "block", secrets: "redact" }, ["a@example.com", "b@example.com and 4111 1111 1111 1111", "AKIAIOSFODNN7EXAMPLE"]);
    expect(report).toEqual({ pii: "block", secrets: "redact", found: { email: 2, card: 1, secret: 1 }, action: "blocked" });
  });

  test("the block message names the blocked kinds and policy keys, never a value", () => {
    const { report } = over({ pii: "block", secrets: "block" }, ["a@example.com, 4111 1111 1111 1111 and sk_live_51Habcdefghijklmnop1234"]);
    const err = blockedError(report!);
    expect(err.code).toBe("blocked_by_policy");
    expect(err.status).toBe(400);
    expect(err.message).toBe(
      `The project's policy blocks this request: it contains an e-mail address, a payment card number and a secret (API key or token) (policy "pii": "block", "secrets": "block"). Remove them, or ask the project's admin to change the policy.`,
    );
    const onlySecrets = blockedError({ pii: "redact", secrets: "block", found: { email: 1, private_key: 1 }, action: "blocked" });
    expect(onlySecrets.message).toContain("it contains a private key (policy \"secrets\": \"block\")");
    expect(onlySecrets.message).not.toContain("e-mail");
  });
});

describe("what is scanned in a chat request", () => {
  test("system prompts, text parts, tool call arguments and tool results, ids, names and URLs", () => {
    const req = {
      model: "m",
      messages: [
        { role: "system", content: "Escalate to ops@example.com." },
        { role: "user", content: [{ type: "text", text: "My IBAN is GB82WEST12345698765432" }, { type: "image_url", image_url: { url: "https://x/a@example.com.png" } }] },
        { role: "assistant", content: null, tool_calls: [{ id: "call_a@example.com", type: "function", function: { name: "send", arguments: '{"to":"bob@example.org"}' } }] },
        { role: "tool", tool_call_id: "call_a@example.com", content: '{"card":"4111 1111 1111 1111"}' },
      ],
    } as ChatRequest;
    const report = guardTexts({ pii: "redact", secrets: "redact" }, (map) => mapChatTexts(req, map));
    expect(report?.found).toEqual({ email: 5, iban: 1, card: 1 });
    expect(req.messages.map((m) => m.content)).toEqual([
      "Escalate to [EMAIL_1].",
      [{ type: "text", text: "My IBAN is [IBAN_1]" }, { type: "image_url", image_url: { url: "https://x/[EMAIL_2]" } }],
      null,
      '{"card":"[CARD_1]"}',
    ]);
    // The call id and the tool result's reference keep one placeholder, so they still match.
    expect(req.messages[2]!.tool_calls).toEqual([{ id: "[EMAIL_3]", type: "function", function: { name: "send", arguments: '{"to":"[EMAIL_4]"}' } }]);
    expect(req.messages[3]!.tool_call_id).toBe("[EMAIL_3]");
  });

  test("a tool's placeholders do not move when a later turn brings a new value (the cached prefix)", () => {
    const turn = (messages: ChatRequest["messages"]): ChatRequest => ({
      model: "m",
      messages,
      tools: [{ type: "function", function: { name: "notify", description: "Mails ops@example.com", parameters: { type: "object" } } }],
    });
    const first = turn([{ role: "user", content: "hello" }]);
    const second = turn([{ role: "user", content: "hello" }, { role: "assistant", content: "hi" }, { role: "user", content: "mail bob@example.org" }]);
    for (const req of [first, second]) guardTexts({ pii: "redact", secrets: "allow" }, (map) => mapChatTexts(req, map));
    expect(first.tools?.[0]?.function.description).toBe("Mails [EMAIL_1]");
    expect(second.tools?.[0]?.function.description).toBe("Mails [EMAIL_1]");
    expect(second.messages[2]?.content).toBe("mail [EMAIL_2]");
  });
});

describe("the guard stage", () => {
  const deps = { config: { trustedProxies: [] }, eventSources: { security: { guarded: () => {} } } } as unknown as Deps;
  function stateWith(policy: Policy, content: string) {
    const project: Project = { id: "prj_1", name: "p", plan: "pro", billingMode: "postpaid", balance: 0, creditLimit: null, policy, createdAt: 0 };
    const key: ApiKey = { id: "key_1", projectId: "prj_1", name: null, keyHash: "", mode: "test", scopes: ["chat"], byok: false, ipAllowlist: null, createdAt: 0, revokedAt: null };
    const auth: AuthContext = { project, key, test: true, rules: compileRules(project, key) };
    const state = newState({ requestId: "req_1", traceId: "t", parentSpanId: null, auth, http: new Request("http://gw/v1/chat/completions"), spans: new SpanRecorder(0), t0: 0 });
    state.request = { model: "m", messages: [{ role: "user", content }] };
    return state;
  }

  test("redact: the request holds placeholders, state.guard the counts", () => {
    const state = stateWith({ pii: "redact" }, "Write to a@example.com, key AKIAIOSFODNN7EXAMPLE");
    guard(deps, state);
    expect(state.request!.messages[0]!.content).toBe("Write to [EMAIL_1], key [SECRET_1]");
    expect(state.guard).toEqual({ pii: "redact", secrets: "redact", found: { email: 1, secret: 1 }, action: "redacted" });
  });

  test("block: 400 blocked_by_policy, and state.guard says so without the value", () => {
    const state = stateWith({ pii: "block" }, "Write to a@example.com");
    let thrown: unknown;
    try {
      guard(deps, state);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(GwError);
    expect((thrown as GwError).code).toBe("blocked_by_policy");
    expect((thrown as GwError).message).not.toContain("a@example.com");
    expect(state.guard).toEqual({ pii: "block", secrets: "redact", found: { email: 1 }, action: "blocked" });
    expect(JSON.stringify(state.guard)).not.toContain("example");
  });

  test("a clean request leaves no state.guard", () => {
    const state = stateWith({ pii: "redact" }, "Explain photosynthesis.");
    guard(deps, state);
    expect(state.guard).toBeUndefined();
  });
});

describe("a request dense with findings (docs/availability.md: bounded work per request)", () => {
  const emails = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `u${from + i}@example.com`).join(" ");

  test("up to MAX_FINDINGS across the request's texts are redacted", () => {
    const { out, report } = over({ pii: "redact", secrets: "redact" }, [emails(5_000), emails(5_000, 5_000)]);
    expect(report!.action).toBe("redacted");
    expect(report!.found.email).toBe(10_000);
    expect(out.join(" ")).not.toContain("@example.com");
  });

  test("one more is refused as a whole, with a message that names no value, and scanning stops", () => {
    const { report } = over({ pii: "redact", secrets: "redact" }, [emails(6_000), emails(4_001, 6_000), emails(50_000, 20_000)]);
    expect(report!.action).toBe("blocked");
    expect(report!.tooMany).toBe(true);
    // The third text is never scanned: the count stops just past the cap.
    expect(report!.found.email).toBe(10_001);
    const error = blockedError(report!);
    expect(error.code).toBe("blocked_by_policy");
    expect(error.message).toContain("more than 10000");
    expect(error.message).not.toContain("example.com");
  });

  test("the cap holds when only personal data is redacted", () => {
    const { report } = over({ pii: "redact", secrets: "allow" }, [emails(10_001)]);
    expect(report!.action).toBe("blocked");
  });
});
