// The learned task classifier (docs/routing.md "Task detection") through the real analyzer and the
// shipped model file: it loads, decides plain requests of every text kind in several languages,
// is deterministic, reads only the ends of a long message, and leaves tools, images and metadata.task first.
import { describe, expect, test } from "bun:test";
import { analyzeRequest, windowText } from "../../src/analysis/analyzer.ts";
import { scanOnce } from "../../src/analysis/scan.ts";
import { classify, loadTaskModel, TASK_MODEL } from "../../src/analysis/task-classifier.ts";
import { newFeatureBuffer, READ_HEAD, READ_TAIL, requestFeatures, TEXT_KINDS } from "../../src/analysis/task-features.ts";
import { boundMessageTokens } from "../../src/analysis/tokens.ts";
import type { ChatRequest } from "../../src/canonical/chat.ts";
import model from "../../src/analysis/task-model.json";

const ask = (content: string, extra: Partial<ChatRequest> = {}, task?: string) => {
  const req: ChatRequest = { model: "gw-auto", messages: [{ role: "user", content }], ...extra };
  return analyzeRequest(req, { inputTokensBound: boundMessageTokens(req.messages), task });
};

const PLAIN: Array<[string, string]> = [
  ["coding", "Write a Python function that checks whether a string is a palindrome."],
  ["coding", "Écris une fonction JavaScript qui trie un tableau d'objets par date."],
  ["math", "Solve for x: 3x + 7 = 22."],
  ["math", "Wie viel ist 15 % von 240?"],
  ["translation", "Translate into German: 'The meeting is moved to Friday.'"],
  ["translation", "Traduis en anglais : « Je serai en retard demain. »"],
  ["translation", "请把这句话翻译成英文：我明天不能来上班。"],
  ["summarization", "Summarize the following article in three bullet points: The city council voted on Tuesday to expand the bike lane network, citing a rise in cycling commuters and fewer accidents on protected routes."],
  ["summarization", "このメールを3行で要約してください：来週の会議は木曜日に変更になりました。議題は予算と採用計画です。資料は前日までに共有してください。"],
  ["extraction", "Extract every person's name and email from this text as JSON: 'Contact Anna Berg (anna@berg.se) or Tom Li (tom@li.cn).'"],
  ["classification", "Is this review positive or negative? 'The battery died after two days.'"],
  ["classification", "Classifica il sentimento di questa recensione: 'Servizio lento e cibo freddo.'"],
  ["creative", "Write a short poem about autumn rain."],
  ["creative", "Escribe un poema corto sobre el mar."],
  ["chat", "Hi! How are you today?"],
  ["chat", "My order #48213 still hasn't arrived, can you help?"],
  ["qa", "What is the capital of Australia?"],
  ["qa", "Wer hat die Relativitätstheorie entwickelt?"],
  ["qa", "东京的人口有多少？"],
  ["reasoning", "Should we migrate our monolith to microservices given a team of four engineers and tight deadlines? Weigh the trade-offs."],
];

describe("task classifier (issue 22)", () => {
  test("the shipped model loads, is small, and matches the classifier's kinds", () => {
    expect(TASK_MODEL.features).toBeGreaterThan(1000);
    expect(JSON.stringify(model).length).toBeLessThan(2_000_000);
    expect(model.classes).toEqual([...TEXT_KINDS]);
    expect(() => loadTaskModel({ ...model, classes: [...model.classes].reverse() })).toThrow("does not match");
  });

  test("plain requests of every text kind, in several languages", () => {
    for (const [kind, prompt] of PLAIN) expect(`${ask(prompt).task}: ${prompt}`).toBe(`${kind}: ${prompt}`);
    expect(new Set(PLAIN.map(([k]) => k)).size).toBe(TEXT_KINDS.length);
  });

  test("the subtype belongs to the chosen kind", () => {
    for (const [, prompt] of PLAIN) {
      const a = ask(prompt);
      expect(a.subtype).not.toBe("");
      expect(ask(prompt).subtype).toBe(a.subtype);
    }
  });

  test("deterministic: the same request gets the same analysis, whatever was analysed between", () => {
    const first = PLAIN.map(([, p]) => ask(p));
    const again = [...PLAIN].reverse().map(([, p]) => ask(p)).reverse();
    expect(again).toEqual(first);
  });

  test("tools, images and metadata.task decide before the text", () => {
    const text = "Translate into German: 'The meeting is moved to Friday.'";
    const tools = [{ type: "function" as const, function: { name: "lookup", parameters: { type: "object", properties: {} } } }];
    expect(ask(text, { tools }).task).toBe("agent");
    const image = [{ type: "text", text }, { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }];
    expect(ask("", { messages: [{ role: "user", content: image }] }).task).toBe("vision");
    const caller = ask(text, {}, "creative");
    expect([caller.task, caller.source]).toEqual(["creative", "caller"]);
  });

  test("a 150k-token message: only its window's ends are read, so the middle changes nothing", () => {
    const line = "The committee reviewed the quarterly figures and asked operations to report on delivery times. ";
    const middleA = line.repeat(6000);
    const middleB = "2026-03-01T10:00:12Z INFO worker-3 processed batch 7 in 120 ms\n".repeat(9000);
    const head = "Summarise the report below in five bullet points for the board.\n\n";
    const tail = "\n\nKeep it under 100 words.";
    const a = ask(`${head}${middleA}${tail}`);
    const b = ask(`${head}${middleB}${tail}`);
    expect(a.task).toBe("summarization");
    expect(b.task).toBe(a.task);
    // The features come from at most READ_HEAD + READ_TAIL characters of the window.
    const buf = newFeatureBuffer();
    const text = `${head}${middleA}${tail}`;
    const window = windowText(text);
    expect(window.length).toBeLessThan(2100);
    requestFeatures(buf, window, scanOnce(window), -1, [{ role: "user", content: text }], 0, false, TASK_MODEL.options);
    expect(buf.n).toBeLessThan(READ_HEAD + READ_TAIL);
    expect(classify(TASK_MODEL, buf)).toBe("summarization");
  });
});
