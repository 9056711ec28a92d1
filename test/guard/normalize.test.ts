// The normalised view and what the guard reads beyond message text (issue 15 item 4;
// docs/guard.md "Normalisation", "Across texts", "What is scanned"): positions map back to the
// original, so redaction replaces what was sent, and clean texts in other scripts stay clean.
import { describe, expect, test } from "bun:test";
import { guardTexts, type GuardPolicy } from "../../src/guard/content-guard.ts";
import { originalRange, scanView } from "../../src/guard/normalize.ts";
import { mapChatTexts, mapInputs } from "../../src/guard/request-texts.ts";
import type { ChatRequest } from "../../src/canonical/chat.ts";
import { CLEAN } from "./samples.ts";

const REDACT: GuardPolicy = { pii: "redact", secrets: "redact" };
const redactChat = (req: Record<string, unknown>, policy = REDACT) => {
  const r = req as ChatRequest;
  const report = guardTexts(policy, (map) => mapChatTexts(r, map));
  return { req: r, report };
};
const msgs = (...contents: unknown[]) => ({ model: "m", messages: contents.map((content) => ({ role: "user", content })) });

describe("the normalised view", () => {
  test("plain ASCII is read as is, with no maps", () => {
    expect(scanView("Write to a@b.com")).toEqual({ text: "Write to a@b.com", from: null, to: null });
  });

  test("escapes, look-alikes, other digits and invisible characters read as ASCII, mapped back", () => {
    const v = scanView("x ａ\u200bd\u0430\\u0040e.com %34&#50;\u0663\u{1d7d2} y");
    expect(v.text).toBe("x ada@e.com 4234 y");
    const at = v.text.indexOf("@");
    expect(originalRange(v, at, at + 1)).toEqual({ start: 6, end: 12 }); // the six characters of \u0040
    expect(originalRange(v, 2, 11)).toEqual({ start: 2, end: 17 }); // "ada@e.com", the zero-width space inside
    const n = v.text.length;
    expect(originalRange(v, n - 2, n)).toEqual({ start: 29, end: 31 }); // " y" follows on
  });

  test("clean texts, and prose in other scripts, hold no findings", () => {
    const texts = [...CLEAN, "Привет, как дела? Встреча в 10:30.", "مرحبا، الاجتماع في ١٠:٣٠ غدا", "会议在明天上午十点。价格是１２３元。", "Ｈｅｌｌｏ ｗｏｒｌｄ 😀 café naïve"];
    for (const t of texts) expect(guardTexts(REDACT, (map) => void map(t))).toBeNull();
  });
});

describe("redaction replaces the original spelling", () => {
  test("fullwidth, escaped and look-alike spellings become one placeholder for one value", () => {
    const { req } = redactChat(msgs("mail ａｄａ＠ｅｘａｍｐｌｅ．ｃｏｍ now", "or ada\\u0040example.com", "or аda@example.com"));
    expect(req.messages.map((m) => m.content)).toEqual(["mail [EMAIL_1] now", "or [EMAIL_1]", "or [EMAIL_1]"]);
  });

  test("an escaped value in tool arguments leaves valid JSON", () => {
    const { req } = redactChat({ model: "m", messages: [{ role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: '{"to":"ada\\u0040example.com","n":1}' } }] }] });
    const args = req.messages[0]!.tool_calls![0]!.function.arguments;
    expect(JSON.parse(args)).toEqual({ to: "[EMAIL_1]", n: 1 });
  });

  test("a data: URL payload is redacted and re-encoded; a clean one is left byte for byte", () => {
    const dirty = `data:text/plain;base64,${Buffer.from("from ada@example.com").toString("base64")}`;
    const clean = `data:image/png;base64,${Buffer.from([137, 80, 78, 71, 0, 1, 2]).toString("base64")}`;
    const { req } = redactChat(msgs([{ type: "image_url", image_url: { url: dirty } }, { type: "image_url", image_url: { url: clean } }]));
    const parts = req.messages[0]!.content as Array<{ image_url: { url: string } }>;
    expect(Buffer.from(parts[0]!.image_url.url.split(",")[1]!, "base64").toString()).toBe("from [EMAIL_1]");
    expect(parts[1]!.image_url.url).toBe(clean);
  });

  test("an image's bytes are read as ASCII: text in a PNG chunk is found; a clean image passes", () => {
    const png = (text: string) => Buffer.concat([Buffer.from([137, 80, 78, 71, 200, 255]), Buffer.from(`tEXtAuthor\u0000${text}`.replace("\\u0000", "\u0000")), Buffer.from([0, 250, 3])]);
    const url = (text: string) => `data:image/png;base64,${png(text).toString("base64")}`;
    const dirty = redactChat(msgs([{ type: "image_url", image_url: { url: url("ada@example.com") } }]), { pii: "block", secrets: "block" });
    expect(dirty.report?.found).toEqual({ email: 1 });
    expect(redactChat(msgs([{ type: "image_url", image_url: { url: url("Ada Lovelace") } }])).report).toBeNull();
  });

  test("a card number as a JSON number in a schema, and a key named with an address", () => {
    const { req, report } = redactChat({ ...msgs("Hi"), tools: [{ type: "function", function: { name: "pay", parameters: { type: "object", properties: { "ada@example.com": { type: "number", default: 4111111111111111 } } } } }] });
    expect(report?.found).toEqual({ email: 1, card: 1 });
    expect(JSON.stringify(req.tools)).toBe('[{"type":"function","function":{"name":"pay","parameters":{"type":"object","properties":{"[EMAIL_1]":{"type":"number","default":"[CARD_1]"}}}}}]');
  });

  test("gw's own fields are not scanned (they never leave gw); sampling numbers are not either", () => {
    expect(redactChat({ ...msgs("Hi"), metadata: { owner: "ada@example.com" }, seed: 4111111111111111 }).report).toBeNull();
  });

  test("user: a redacted user becomes a per-process pseudonym, distinct per user and stable", () => {
    const a = redactChat({ ...msgs("Hi"), user: "ada@example.com" }).req.user as string;
    const b = redactChat({ ...msgs("Hi"), user: "bob@example.com" }).req.user as string;
    expect(a).toMatch(/^gw-user-[0-9a-f]{24}$/);
    expect(b).not.toBe(a);
    expect(redactChat({ ...msgs("Hi"), user: "ada@example.com" }).req.user).toBe(a);
    expect(redactChat({ ...msgs("Hi"), user: "user-42" }).req.user).toBe("user-42");
  });

  test("block leaves every text as it came", () => {
    const { req, report } = redactChat(msgs("a@example.com"), { pii: "block", secrets: "block" });
    expect(report?.action).toBe("blocked");
    expect(req.messages[0]!.content).toBe("a@example.com");
  });
});

describe("across adjacent texts", () => {
  test("a value split across parts or messages is redacted in each piece, counted once", () => {
    const { req, report } = redactChat(msgs([{ type: "text", text: "mail ada@exa" }, { type: "text", text: "mple.com now" }], "card 4111 1111", "1111 1111 ok"));
    expect(report?.found).toEqual({ email: 1, card: 1 });
    expect(req.messages.map((m) => m.content)).toEqual([[{ type: "text", text: "mail [EMAIL_1]" }, { type: "text", text: "[EMAIL_1] now" }], "card [CARD_1]", "[CARD_1] ok"]);
  });

  test("two values side by side are not read as one (no over-redaction)", () => {
    const { req } = redactChat(msgs("Contact ada@example.com", "plain text"));
    expect(req.messages.map((m) => m.content)).toEqual(["Contact [EMAIL_1]", "plain text"]);
  });

  test("a secret whose head is a secret alone: the tail in the next text goes too", () => {
    const { req } = redactChat(msgs("key sk-proj-Abc123def456ghi789jkl", "012mno345pqr678 thanks"));
    expect(req.messages.map((m) => m.content)).toEqual(["key [SECRET_1]", "[SECRET_1] thanks"]);
  });

  test("split values count against MAX_FINDINGS like any other: past it the request is refused", () => {
    const parts = (pairs: number) => Array.from({ length: pairs }, (_, i) => [{ type: "text", text: ` u${i}@exa` }, { type: "text", text: "mple.com" }]).flat();
    const ok = redactChat(msgs(parts(5_000)));
    expect(ok.report).toMatchObject({ action: "redacted", found: { email: 5_000 } });
    expect(JSON.stringify(ok.req)).not.toContain("mple.com");
    const over = redactChat(msgs(parts(10_001)));
    expect(over.report).toMatchObject({ action: "blocked", tooMany: true, found: { email: 10_001 } });
  });

  test("embedding inputs are read one by one (each is embedded alone)", () => {
    let input = ["mail ada@exa", "mple.com"];
    const report = guardTexts(REDACT, (map) => (input = mapInputs(input, map)), false);
    expect(report).toBeNull();
  });
});
