// The content analyzer's request-level rules: caller hints, agent and vision, needs and context
// size, workload, live data, personal data, language, complexity, the bounded window.
// Docs: docs/routing.md "Analysis"; docs/api.md "Extension fields"; docs/cache.md "Classification".
import { describe, expect, test } from "bun:test";
import { analyzeRequest, expectedOutputTokens, KINDS, SUBTYPES, WINDOW_HEAD, WINDOW_TAIL, type AnalyzerHints } from "../../src/analysis/analyzer.ts";
import { boundMessageTokens } from "../../src/analysis/tokens.ts";
import type { ChatMessage, ChatRequest } from "../../src/canonical/chat.ts";
import { TASK_KINDS } from "../../src/routing/catalog-types.ts";
import { weatherTool } from "../fixtures/tools.ts";

const ask = (text: string, extra: Partial<ChatRequest> = {}, hints: Partial<AnalyzerHints> = {}) =>
  analyzeRequest({ model: "gw-auto", messages: [{ role: "user", content: text }], ...extra }, { inputTokensBound: 100, ...hints });

const image = (text: string): ChatMessage => ({
  role: "user",
  content: [{ type: "text", text }, { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }],
});

describe("vocabulary (routing catalog TASK_KINDS)", () => {
  test("task kinds are the catalog's minus general, each with a subtype list", () => {
    expect([...KINDS].sort()).toEqual(TASK_KINDS.filter((k) => k !== "general").sort());
    for (const kind of KINDS) expect(SUBTYPES[kind].length).toBeGreaterThan(0);
  });
});

describe('caller hints: metadata (docs/api.md "Extension fields")', () => {
  test("metadata.task wins when it is a known kind", () => {
    const a = ask("Translate 'good morning' into German.", {}, { task: "creative" });
    expect(a.task).toBe("creative");
    expect(a.source).toBe("caller");
    expect(SUBTYPES.creative).toContain(a.subtype);
  });

  test("a caller task equal to the detected one keeps the detected subtype", () => {
    const a = ask("Fix this bug: TypeError: Cannot read properties of undefined", {}, { task: "coding" });
    expect(a).toMatchObject({ task: "coding", subtype: "debugging", source: "caller" });
  });

  test("an unknown or generic metadata.task is ignored", () => {
    for (const task of ["general", "banana", ""]) {
      const a = ask("Translate 'good morning' into German.", {}, { task });
      expect(a).toMatchObject({ task: "translation", source: "detected" });
    }
  });

  test("priority realtime and batch set the workload; otherwise the task decides", () => {
    expect(ask("Write a haiku about snow.", {}, { priority: "realtime" }).workload).toBe("realtime");
    expect(ask("Write a haiku about snow.", {}, { priority: "batch" }).workload).toBe("batch");
    expect(ask("Write a haiku about snow.", {}, { priority: "normal" }).workload).toBe("content");
    expect(ask("Write a Python function that reverses a string.").workload).toBe("coding");
    expect(ask("Prove that the square root of 2 is irrational.").workload).toBe("reasoning");
    expect(ask("Classify this review as positive or negative: 'great'").workload).toBe("batch");
    expect(ask("hey, how's it going?").workload).toBe("realtime");
  });

  test("support chats and customer-tier questions have the support workload", () => {
    expect(ask("My order #A-778 hasn't arrived yet, can you check?").workload).toBe("support");
    expect(ask("Why is the sky blue?", {}, { customerTier: "gold" }).workload).toBe("support");
  });
});

describe("agent and vision come from the request", () => {
  test("tools make an agent request; tool_choice and tool results set the subtype", () => {
    expect(ask("What's the weather in Oslo?", { tools: [weatherTool] })).toMatchObject({ task: "agent", subtype: "tool_use" });
    expect(ask("What's the weather in Oslo?", { tools: [weatherTool], tool_choice: "required" }).subtype).toBe("forced_tool");
    const withResult = analyzeRequest(
      {
        model: "gw-auto",
        tools: [weatherTool],
        messages: [
          { role: "user", content: "What's the weather in Oslo?" },
          { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: "{}" } }] },
          { role: "tool", tool_call_id: "c1", content: "{\"temp\":3}" },
        ],
      },
      { inputTokensBound: 60 },
    );
    expect(withResult).toMatchObject({ task: "agent", subtype: "tool_result", liveData: true });
    expect(withResult.needs.tools).toBe(true);
  });

  test("image parts make a vision request and need a vision model, even from an earlier turn", () => {
    const a = analyzeRequest({ model: "gw-auto", messages: [image("Transcribe the handwritten note.")] }, { inputTokensBound: 50 });
    expect(a).toMatchObject({ task: "vision", subtype: "ocr" });
    expect(a.needs.vision).toBe(true);
    const followUp = analyzeRequest(
      { model: "gw-auto", messages: [image("What is this?"), { role: "assistant", content: "A bar chart." }, { role: "user", content: "Which bar is tallest?" }] },
      { inputTokensBound: 50 },
    );
    expect(followUp.task).toBe("vision");
    expect(followUp.needs.vision).toBe(true);
  });
});

describe("needs", () => {
  test("response_format json asks for json mode", () => {
    expect(ask("List three colours.", { response_format: { type: "json_object" } }).needs.json).toBe(true);
    expect(ask("List three colours.", { response_format: { type: "json_schema", json_schema: { name: "x" } } }).needs.json).toBe(true);
    expect(ask("List three colours.", { response_format: { type: "text" } }).needs.json).toBe(false);
  });

  test("contextTokens = input bound + max_completion_tokens, max_tokens, or the task's estimate", () => {
    expect(ask("Write a haiku.", { max_tokens: 300 }, { inputTokensBound: 1000 }).needs.contextTokens).toBe(1300);
    expect(ask("Write a haiku.", { max_tokens: 300, max_completion_tokens: 500 }, { inputTokensBound: 1000 }).needs.contextTokens).toBe(1500);
    const a = ask("Write a haiku.", {}, { inputTokensBound: 1000 });
    expect(a.needs.contextTokens).toBe(1000 + expectedOutputTokens("creative"));
    for (const kind of KINDS) expect(expectedOutputTokens(kind)).toBeGreaterThan(0);
  });
});

describe('live data (docs/cache.md "Classification")', () => {
  const live = (text: string): boolean => ask(text).liveData;

  test("now, today, prices, weather, markets, news, scores, order status", () => {
    for (const text of [
      "What's the weather in Paris today?",
      "What's the bitcoin price right now?",
      "What's the EUR to USD exchange rate?",
      "Give me the latest news about the election.",
      "What was the final score of the Arsenal game?",
      "Where is my order? It still hasn't arrived.",
      "Is the blue XL still in stock?",
      "Quel temps fait-il aujourd'hui à Lyon ?",
      "Wie ist das Wetter morgen in Berlin?",
      "¿Cuál es la cotización del dólar hoy?",
      "今天北京的天气怎么样？",
      "What time is it in Tokyo?",
      "Remind me what's on next Friday.",
    ]) expect([text, live(text)]).toEqual([text, true]);
  });

  test("timeless questions and time words inside material to translate are not live", () => {
    for (const text of [
      "Explain how photosynthesis works.",
      "Write a poem about rain.",
      "Translate into French: 'see you tomorrow'",
      "Summarize: The council met yesterday and approved the budget.",
      "What is 17% of 2,340?",
    ]) expect([text, live(text)]).toEqual([text, false]);
  });
});

describe('personal data (docs/cache.md "Classification")', () => {
  const personal = (text: string): boolean => ask(text).personal;

  test("personal phrases and personal identifiers", () => {
    for (const text of [
      "I can't log into my account.",
      "I forgot my password, help me reset it",
      "Where is my order #12345?",
      "Can you check the balance on my credit card?",
      "My name is Jane and I live in Leeds.",
      "Send it to jane.doe@example.com please.",
      "Call me on +44 20 7946 0958.",
      "Pay to IBAN DE89 3704 0044 0532 0130 00.",
      "Où est ma commande ?",
      "Ich habe mein Passwort vergessen.",
      "No puedo entrar en mi cuenta.",
      "我的订单还没到。",
    ]) expect([text, personal(text)]).toEqual([text, true]);
  });

  test("general questions about the same things are not personal", () => {
    for (const text of [
      "What is a savings account?",
      "How do I renew a UK passport from abroad?",
      "Write a story about a lost password.",
      "Explain how credit card interest works.",
    ]) expect([text, personal(text)]).toEqual([text, false]);
  });
});

describe("language (ISO 639-1)", () => {
  test("scripts decide for non-Latin text; stopwords for Latin languages", () => {
    const cases: Array<[string, string]> = [
      ["What is the capital of Peru?", "en"],
      ["Quelle est la capitale du Pérou ?", "fr"],
      ["Was ist die Hauptstadt von Peru?", "de"],
      ["¿Cuál es la capital de Perú?", "es"],
      ["Qual è la capitale del Perù?", "it"],
      ["Qual é a capital do Peru?", "pt"],
      ["Wat is de hoofdstad van Peru?", "nl"],
      ["Какая столица Перу?", "ru"],
      ["Яка столиця Перу? Це цікаво.", "uk"],
      ["秘鲁的首都是哪里？", "zh"],
      ["ペルーの首都はどこですか？", "ja"],
      ["페루의 수도는 어디입니까?", "ko"],
      ["ما هي عاصمة البيرو؟", "ar"],
      ["पेरू की राजधानी क्या है?", "hi"],
      ["Ποια είναι η πρωτεύουσα του Περού;", "el"],
      ["מה הבירה של פרו?", "he"],
      ["เมืองหลวงของเปรูคืออะไร", "th"],
      ["1234 5678", "und"],
    ];
    for (const [text, lang] of cases) expect([text, ask(text).language]).toEqual([text, lang]);
  });

  test("quoted or fenced material does not decide the language", () => {
    expect(ask("Traduci in italiano: 'Please keep your luggage with you at all times.'").language).toBe("it");
    expect(ask("请解释这段代码：\n```python\ndef add(a, b):\n    return a + b\n```").language).toBe("zh");
  });
});

describe("complexity", () => {
  test("a greeting is low; a long prompt with many constraints and steps is high", () => {
    // The bound the analyze stage passes for it (the default 100 of ask() is a page's worth for a greeting).
    expect(ask("hi!", {}, { inputTokensBound: boundMessageTokens([{ role: "user", content: "hi!" }]) }).complexity).toBe("low");
    const spec = [
      "Write a migration plan. It must include:",
      "- a rollback step for each stage",
      "- at most 3 hours of downtime",
      "- no more than 2 engineers on call",
      "- exactly one owner per service",
      "- avoid weekend deploys",
      "First inventory the services, then order them by risk, finally schedule the cut-over.",
    ].join("\n");
    expect(ask(spec, {}, { inputTokensBound: 2500 }).complexity).toBe("high");
  });
});

describe("bounded window", () => {
  test("only the head and tail of a long message are read: the instruction at the end still counts", () => {
    const filler = "The quarterly figures were discussed at length by the committee. ".repeat(400);
    const a = ask(`${filler}\n\nTranslate the text above into Spanish.`, {}, { inputTokensBound: 6000 });
    expect(a.task).toBe("translation");
    expect(WINDOW_HEAD + WINDOW_TAIL).toBeLessThan(filler.length);
  });

  test("the work is bounded by the window: 1,000 or 100,000 tokens between head and tail read the same", () => {
    // No clock here (a shared machine makes timings flaky); bench/micro/analyze-route-p50.ts times it.
    const head = "Our checkout service times out under load when the payment provider is slow. ".repeat(25);
    const tail = "\nSummarize the incident in three bullets.";
    const middle = (n: number) => "The retry queue grew and the pool stayed saturated. ".repeat(n);
    const small = analyzeRequest({ model: "gw-auto", messages: [{ role: "user", content: `${head}${middle(20)}${tail}` }] }, { inputTokensBound: 1100 });
    const large = analyzeRequest({ model: "gw-auto", messages: [{ role: "user", content: `${head}${middle(10_000)}${tail}` }] }, { inputTokensBound: 1100 });
    expect(large).toEqual(small);
  });
});
