// Contract tests of structured answers on POST /chat/completions in test mode (docs/api.md
// "Test mode"): json_object, json_schema validated with ajv, and function tool calls whose
// arguments validate against the function's parameters, whole and streamed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Ajv from "ajv";
import { startTestGw, type TestGw } from "../helpers/test-gw.ts";
import { chat, framesOf, json, readSse, user, type Json } from "./chat-helpers.ts";

let gw: TestGw;
beforeAll(async () => {
  gw = await startTestGw();
});
afterAll(() => gw.stop());

const ajv = new Ajv({ allErrors: true, strict: false });

function expectValid(schema: object, value: unknown): void {
  const validate = ajv.compile(schema);
  if (!validate(value)) {
    throw new Error(`${JSON.stringify(value)} does not validate: ${ajv.errorsText(validate.errors)}`);
  }
}

interface ToolCall {
  id: string;
  type: string;
  function: { name: string; arguments: string };
}
interface Message {
  role: string;
  content: string | null;
  tool_calls?: ToolCall[];
}
const choiceOf = (body: Json) => (body.choices as Array<{ message: Message; finish_reason: string }>)[0]!;

const PROMPTS = ["Describe a customer.", "Another one, please.", "Give me a third example.", "Fourth!", "Last one."];

const SCHEMAS: Record<string, object> = {
  nested_objects: {
    type: "object",
    properties: {
      customer: {
        type: "object",
        properties: {
          name: { type: "string", minLength: 1, maxLength: 40 },
          address: {
            type: "object",
            properties: { city: { type: "string" }, zip: { type: "string", pattern: "^[0-9]{5}$" } },
            required: ["city", "zip"],
            additionalProperties: false,
          },
        },
        required: ["name", "address"],
        additionalProperties: false,
      },
    },
    required: ["customer"],
    additionalProperties: false,
  },
  enums_and_numbers: {
    type: "object",
    properties: {
      status: { type: "string", enum: ["open", "closed", "pending"] },
      priority: { type: "integer", enum: [1, 2, 3] },
      score: { type: "number", minimum: 0, maximum: 1 },
      flagged: { type: "boolean" },
    },
    required: ["status", "priority", "score", "flagged"],
    additionalProperties: false,
  },
  arrays: {
    type: "object",
    properties: {
      items: {
        type: "array",
        minItems: 2,
        maxItems: 4,
        items: {
          type: "object",
          properties: { sku: { type: "string" }, qty: { type: "integer", minimum: 1, maximum: 99 } },
          required: ["sku", "qty"],
          additionalProperties: false,
        },
      },
      labels: { type: "array", items: { type: "string" }, uniqueItems: true },
    },
    required: ["items", "labels"],
    additionalProperties: false,
  },
  defs_and_refs: {
    $defs: {
      point: {
        type: "object",
        properties: { x: { type: "number" }, y: { type: "number" } },
        required: ["x", "y"],
        additionalProperties: false,
      },
    },
    type: "object",
    properties: {
      origin: { $ref: "#/$defs/point" },
      path: { type: "array", items: { $ref: "#/$defs/point" }, minItems: 1 },
    },
    required: ["origin", "path"],
    additionalProperties: false,
  },
  strict_nullable: {
    type: "object",
    properties: {
      note: { type: ["string", "null"] },
      kind: { anyOf: [{ type: "string", enum: ["a", "b"] }, { type: "integer", minimum: 10 }] },
    },
    required: ["note", "kind"],
    additionalProperties: false,
  },
};

describe('response_format (docs/api.md "Test mode")', () => {
  test("json_object: the content parses as a JSON object", async () => {
    for (const prompt of PROMPTS) {
      const body = await json(await chat(gw, { messages: user(prompt), response_format: { type: "json_object" } }));
      const choice = choiceOf(body);
      expect(choice.finish_reason).toBe("stop");
      const parsed: unknown = JSON.parse(choice.message.content!);
      expect(typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)).toBe(true);
    }
  });

  for (const [name, schema] of Object.entries(SCHEMAS)) {
    test(`json_schema ${name}: the content validates against the schema`, async () => {
      const contents = new Set<string>();
      for (const prompt of PROMPTS) {
        const res = await chat(gw, {
          model: "gw-auto",
          messages: user(prompt),
          response_format: { type: "json_schema", json_schema: { name, strict: true, schema } },
        });
        expect(res.status).toBe(200);
        const choice = choiceOf(await json(res));
        expect(choice.finish_reason).toBe("stop");
        expectValid(schema, JSON.parse(choice.message.content!));
        contents.add(choice.message.content!);
      }
      // Different requests are different samples, not one canned value.
      expect(contents.size).toBeGreaterThan(1);
    });
  }

  test("json_schema streamed: the concatenated deltas validate too", async () => {
    const schema = SCHEMAS.arrays!;
    const res = await chat(gw, {
      messages: user("Stream JSON."), stream: true,
      response_format: { type: "json_schema", json_schema: { name: "arrays", schema } },
    });
    const frames = framesOf(await readSse(res));
    const text = frames
      .flatMap((f) => ((f.choices ?? []) as Array<{ delta: { content?: string | null } }>).map((c) => c.delta.content ?? ""))
      .join("");
    expectValid(schema, JSON.parse(text));
  });
});

const TOOLS = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: "Current weather for a city",
      parameters: {
        type: "object",
        properties: { city: { type: "string", minLength: 1 }, unit: { type: "string", enum: ["celsius", "fahrenheit"] } },
        required: ["city", "unit"],
        additionalProperties: false,
      },
    },
  },
  {
    type: "function",
    function: {
      name: "search_docs",
      description: "Search the documentation",
      parameters: {
        type: "object",
        properties: {
          query: { type: "string", minLength: 1 },
          limit: { type: "integer", minimum: 1, maximum: 10 },
          filters: {
            type: "object",
            properties: { lang: { type: "string", enum: ["en", "de", "fr"] }, tags: { type: "array", items: { type: "string" } } },
            required: ["lang"],
            additionalProperties: false,
          },
        },
        required: ["query", "limit", "filters"],
        additionalProperties: false,
      },
    },
  },
  {
    type: "function",
    function: {
      name: "create_ticket",
      parameters: {
        $defs: { person: { type: "object", properties: { email: { type: "string" } }, required: ["email"], additionalProperties: false } },
        type: "object",
        properties: { reporter: { $ref: "#/$defs/person" }, watchers: { type: "array", items: { $ref: "#/$defs/person" } } },
        required: ["reporter", "watchers"],
        additionalProperties: false,
      },
    },
  },
] as const;

const paramsOf = (name: string) => TOOLS.find((t) => t.function.name === name)!.function.parameters;

function expectToolCall(body: Json, expectedName?: string): ToolCall {
  const choice = choiceOf(body);
  expect(choice.finish_reason).toBe("tool_calls");
  expect(choice.message.role).toBe("assistant");
  expect(choice.message.tool_calls).toHaveLength(1);
  const call = choice.message.tool_calls![0]!;
  expect(call.type).toBe("function");
  expect(call.id.length).toBeGreaterThan(0);
  if (expectedName) expect(call.function.name).toBe(expectedName);
  expect(TOOLS.map((t) => t.function.name as string)).toContain(call.function.name);
  expectValid(paramsOf(call.function.name), JSON.parse(call.function.arguments));
  return call;
}

describe('tools and tool_choice in test mode (docs/api.md "Test mode")', () => {
  test("tool_choice auto: the function the user names is called with valid arguments", async () => {
    const body = await json(await chat(gw, { messages: user("Use get_weather for Paris."), tools: TOOLS, tool_choice: "auto" }));
    expectToolCall(body, "get_weather");
    const other = await json(await chat(gw, { messages: user("Please search_docs for 'retry'."), tools: TOOLS }));
    expectToolCall(other, "search_docs");
  });

  test("tool_choice required: some tool is called, arguments valid", async () => {
    for (const prompt of PROMPTS) {
      expectToolCall(await json(await chat(gw, { messages: user(prompt), tools: TOOLS, tool_choice: "required" })));
    }
  });

  for (const tool of TOOLS) {
    test(`tool_choice {function: ${tool.function.name}} forces that function`, async () => {
      for (const prompt of ["Use get_weather now.", "Whatever you like.", "search_docs maybe?"]) {
        const body = await json(await chat(gw, {
          messages: user(prompt), tools: TOOLS, tool_choice: { type: "function", function: { name: tool.function.name } },
        }));
        expectToolCall(body, tool.function.name);
      }
    });
  }

  test("tool_choice none: a text answer, no tool_calls", async () => {
    const choice = choiceOf(await json(await chat(gw, { messages: user("Use get_weather."), tools: TOOLS, tool_choice: "none" })));
    expect(choice.finish_reason).toBe("stop");
    expect(typeof choice.message.content).toBe("string");
    expect(choice.message.tool_calls ?? []).toEqual([]);
  });

  test("after a tool result (tool_choice auto) the answer is text", async () => {
    const first = expectToolCall(await json(await chat(gw, { messages: user("Use get_weather for Oslo."), tools: TOOLS })));
    const res = await chat(gw, {
      tools: TOOLS,
      tool_choice: "auto",
      messages: [
        ...user("Use get_weather for Oslo."),
        { role: "assistant", content: null, tool_calls: [first] },
        { role: "tool", tool_call_id: first.id, content: JSON.stringify({ temp: 4, sky: "cloudy" }) },
      ],
    });
    expect(res.status).toBe(200);
    const choice = choiceOf(await json(res));
    expect(choice.finish_reason).toBe("stop");
    expect(choice.message.content!.length).toBeGreaterThan(0);
    expect(choice.message.tool_calls ?? []).toEqual([]);
  });

  test("streamed tool calls: the deltas rebuild the same call as the non-streamed answer", async () => {
    const req = { messages: user("Please search_docs for 'fallback'."), tools: TOOLS, tool_choice: "auto" };
    const whole = expectToolCall(await json(await chat(gw, req)), "search_docs");
    const frames = framesOf(await readSse(await chat(gw, { ...req, stream: true })));
    const calls = new Map<number, { id: string; type: string; name: string; arguments: string }>();
    const finishes: string[] = [];
    for (const f of frames) {
      if (f.object !== "chat.completion.chunk") continue;
      for (const c of f.choices as Array<{ delta: { tool_calls?: Json[] }; finish_reason: string | null }>) {
        if (c.finish_reason) finishes.push(c.finish_reason);
        for (const d of c.delta.tool_calls ?? []) {
          const index = d.index as number;
          const fn = (d.function ?? {}) as { name?: string; arguments?: string };
          const cur = calls.get(index) ?? { id: "", type: "", name: "", arguments: "" };
          if (typeof d.id === "string") cur.id = d.id;
          if (typeof d.type === "string") cur.type = d.type;
          cur.name += fn.name ?? "";
          cur.arguments += fn.arguments ?? "";
          calls.set(index, cur);
        }
      }
    }
    expect(finishes).toEqual(["tool_calls"]);
    expect([...calls.keys()]).toEqual([0]);
    const call = calls.get(0)!;
    expect(call.id).toMatch(/.+/);
    expect(call.type).toBe("function");
    expect(call.name).toBe(whole.function.name);
    expect(call.arguments).toBe(whole.function.arguments);
    expectValid(paramsOf(call.name), JSON.parse(call.arguments));
    expect(frames.at(-1)!.object).toBe("gw.summary");
  });
});
