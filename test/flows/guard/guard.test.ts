// The PII and secrets guard redacting through the real server (issue 9 item 6; docs/api.md
// "Project policy" `pii`, `secrets`; docs/guard.md): what a scripted upstream receives for every kind, in every
// text a chat request carries, on /responses and /embeddings, and what the cache keeps.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { post } from "../../helpers/test-gw.ts";
import { SAMPLES } from "../../guard/samples.ts";
import { type GuardGw, sentMessages, startGuardGw } from "./guard-helpers.ts";

let g: GuardGw;
let redactAll: string;
let defaults: string;
beforeAll(async () => {
  g = await startGuardGw({ GW_SEMANTIC_EMBEDDER: "ngram" });
  redactAll = (await g.keyFor({ pii: "redact", secrets: "redact" })).key;
  defaults = (await g.keyFor({})).key;
});
afterEach(() => g.upstream.reset());
afterAll(() => g.stop());

const chat = (key: string, body: Record<string, unknown>) =>
  post(`${g.gw.url}/chat/completions`, key, { model: "openai/gpt-4o-mini", cache: { mode: "bypass" }, ...body });
const userSays = (content: unknown) => [{ role: "user", content }];

describe("redact: the upstream sees the placeholder, for every kind", () => {
  for (const s of SAMPLES) {
    test(s.name, async () => {
      const res = await chat(redactAll, { messages: userSays(s.text) });
      expect(res.status).toBe(200);
      const sent = sentMessages(g.upstream).at(-1)!;
      expect(sent.content).toBe(s.text.replace(s.value, s.placeholder));
      expect(JSON.stringify(g.upstream.calls)).not.toContain(s.value);
    });
  }
});

describe('defaults (docs/api.md "Project policy")', () => {
  test("secrets are redacted by default while personal data passes (pii allow)", async () => {
    const res = await chat(defaults, { messages: userSays("Mail ada@example.com the key AKIAIOSFODNN7EXAMPLE") });
    expect(res.status).toBe(200);
    expect(sentMessages(g.upstream)[0]!.content).toBe("Mail ada@example.com the key [SECRET_1]");
  });

  test("secrets: allow sends the request as it came", async () => {
    const { key } = await g.keyFor({ secrets: "allow" });
    expect((await chat(key, { messages: userSays("key AKIAIOSFODNN7EXAMPLE") })).status).toBe(200);
    expect(sentMessages(g.upstream)[0]!.content).toBe("key AKIAIOSFODNN7EXAMPLE");
  });
});

describe("every text a chat request carries", () => {
  test("system prompt, text parts, tool call arguments and tool results; one placeholder per value", async () => {
    const res = await chat(redactAll, {
      messages: [
        { role: "system", content: "Escalate to ops@example.com." },
        { role: "user", content: [{ type: "text", text: "Write to ops@example.com and bob@example.org" }] },
        { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "lookup", arguments: '{"phone":"+44 20 7946 0958"}' } }] },
        { role: "tool", tool_call_id: "call_1", content: '{"iban":"GB82WEST12345698765432","token":"ghp_abcdefghijklmnopqrstuvwxyz0123456789"}' },
      ],
      tools: [{ type: "function", function: { name: "lookup", parameters: { type: "object" } } }],
    });
    expect(res.status).toBe(200);
    const sent = sentMessages(g.upstream);
    expect(sent[0]!.content).toBe("Escalate to [EMAIL_1].");
    expect(JSON.stringify(sent[1]!.content)).toContain("Write to [EMAIL_1] and [EMAIL_2]");
    expect(sent[2]!.tool_calls).toEqual([{ id: "call_1", type: "function", function: { name: "lookup", arguments: '{"phone":"[PHONE_1]"}' } }]);
    expect(sent[3]!.content).toBe('{"iban":"[IBAN_1]","token":"[SECRET_1]"}');
  });
});

describe("/responses: instructions and input", () => {
  test("the chat messages the codec made are redacted before the call", async () => {
    const res = await post(`${g.gw.url}/responses`, redactAll, {
      model: "openai/gpt-4o-mini",
      instructions: "Sign as ops@example.com.",
      input: [{ role: "user", content: [{ type: "input_text", text: "Card 4111 1111 1111 1111, key sk_live_51Habcdefghijklmnop1234" }] }],
    });
    expect(res.status).toBe(200);
    const sent = sentMessages(g.upstream);
    expect(sent[0]!.content).toBe("Sign as [EMAIL_1].");
    expect(sent[1]!.content).toBe("Card [CARD_1], key [SECRET_1]");
  });
});

describe("/embeddings: each input", () => {
  test("inputs are redacted; blocked inputs answer 400", async () => {
    const res = await post(`${g.gw.url}/embeddings`, redactAll, {
      model: "openai/text-embedding-3-small", input: ["Contact ada@example.com", "plain text", "token xoxb-123456789012-abcdefghij"],
    });
    expect(res.status).toBe(200);
    expect((g.upstream.calls[0]!.body as { input: string[] }).input).toEqual(["Contact [EMAIL_1]", "plain text", "token [SECRET_1]"]);
    const { key } = await g.keyFor({ pii: "block" });
    const blocked = await post(`${g.gw.url}/embeddings`, key, { model: "openai/text-embedding-3-small", input: "Contact ada@example.com" });
    expect(blocked.status).toBe(400);
    const text = await blocked.text();
    expect(JSON.parse(text).error.code).toBe("blocked_by_policy");
    expect(text).not.toContain("ada@example.com");
    expect(g.upstream.callCount("/embeddings")).toBe(1);
  });
});

describe('the cache keeps the redacted request only (docs/guard.md "Where it runs")', () => {
  test("the stored answer and question hold no raw e-mail; another address finds the same entry", async () => {
    const { key, projectId } = await g.keyFor({ pii: "redact", semantic_cache: true });
    const ask = (to: string) => post(`${g.gw.url}/chat/completions`, key, {
      model: "openai/gpt-4o-mini", user: "u-1", messages: userSays(`Thank ${to} for the book.`),
    });
    const first = await ask("ada.lovelace@example.com");
    expect(first.status).toBe(200);
    expect(first.headers.get("x-gw-cache")).toBe("miss");
    await g.gw.deps.answers.flushed();
    const rows = g.gw.deps.db.query<{ body: string; question: string | null }, [string]>("SELECT body, question FROM cache_entries WHERE project_id = ?").all(projectId);
    expect(rows.length).toBe(1);
    expect(JSON.stringify(rows)).not.toContain("ada.lovelace@example.com");
    expect(rows[0]!.body).toContain("Thank [EMAIL_1] for the book."); // the scripted upstream echoes what it was sent
    expect(rows[0]!.question).toBe("Thank [EMAIL_1] for the book.");
    // The key is computed from the redacted request, so a different address is the same question.
    const second = await ask("grace.hopper@example.net");
    expect(second.headers.get("x-gw-cache")).toBe("exact");
    expect(g.upstream.callCount("/chat/completions")).toBe(1);
  });
});
