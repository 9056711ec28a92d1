// Simulated, deterministic answers for test mode (docs/api.md "Test mode"): the same
// request always gets the same content; JSON and tool-call arguments validate against their schemas.
import { countMessageTokens, countTextTokens, messageText, truncateToTokens } from "../../analysis/tokens.ts";
import { seedOf } from "../../lib/hash.ts";
import { newCallId, newCompletionId } from "../../lib/ids.ts";
import type { ChatCompletion } from "../../canonical/completion.ts";
import type { ChatRequest, FunctionTool, ToolCall } from "../../canonical/chat.ts";
import type { ProviderCall } from "../types.ts";
import { sampleFromSchema } from "./schema-sample.ts";

const SENTENCES = [
  "This is a simulated answer from gw test mode.",
  "No provider was called and nothing was charged.",
  "The same request always receives this same answer.",
  "Use a gw_live_ key to reach a real model.",
  "Routing, logging and tracing ran exactly as they would for a live request.",
  "Test mode is meant for integration tests and local development.",
];

/** The fields that make two requests the same request. */
function requestSeed(model: string, req: ChatRequest): number {
  const { messages, tools, tool_choice, response_format, max_tokens, temperature, top_p, stop } = req;
  return seedOf(JSON.stringify([model, messages, tools, tool_choice, response_format, max_tokens, temperature, top_p, stop]));
}

function chooseTool(req: ChatRequest, seed: number): FunctionTool | null {
  const tools = req.tools ?? [];
  const choice = req.tool_choice ?? "auto";
  if (tools.length === 0 || choice === "none") return null;
  // After a tool result the conversation continues in words, so agent loops terminate.
  if (req.messages.at(-1)?.role === "tool" && choice === "auto") return null;
  if (typeof choice === "object") return tools.find((t) => t.function.name === choice.function.name) ?? null;
  const lastUser = [...req.messages].reverse().find((m) => m.role === "user");
  const said = lastUser ? messageText(lastUser).toLowerCase() : "";
  return tools.find((t) => said.includes(t.function.name.toLowerCase())) ?? tools[seed % tools.length] ?? null;
}

function textAnswer(modelId: string, seed: number): string {
  const first = SENTENCES[seed % SENTENCES.length] as string;
  const second = SENTENCES[(seed >>> 8) % SENTENCES.length] as string;
  const tail = first === second ? "" : ` ${second}`;
  return `${first}${tail} (model ${modelId}, answer ${(seed >>> 0).toString(16).padStart(8, "0")})`;
}

function jsonAnswer(req: ChatRequest, modelId: string, seed: number): string | null {
  const format = req.response_format;
  if (format?.type === "json_schema") return JSON.stringify(sampleFromSchema(format.json_schema?.schema ?? {}, seed));
  if (format?.type === "json_object") return JSON.stringify({ answer: textAnswer(modelId, seed), test: true });
  return null;
}

export function simulateCompletion(call: ProviderCall): ChatCompletion {
  const req = call.request;
  const seed = requestSeed(call.model.id, req);
  const tool = chooseTool(req, seed);
  const promptTokens = countMessageTokens(req.messages);
  const base = { id: newCompletionId(), object: "chat.completion" as const, created: Math.floor(Date.now() / 1000), model: call.model.id };

  if (tool) {
    const args = JSON.stringify(sampleFromSchema(tool.function.parameters ?? { type: "object", properties: {} }, seed));
    const toolCall: ToolCall = { id: newCallId(), type: "function", function: { name: tool.function.name, arguments: args } };
    const completionTokens = countTextTokens(tool.function.name + args) + 3;
    return {
      ...base,
      choices: [{ index: 0, message: { role: "assistant", content: null, tool_calls: [toolCall] }, finish_reason: "tool_calls" }],
      usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
    };
  }

  const json = jsonAnswer(req, call.model.id, seed);
  const limit = req.max_completion_tokens ?? req.max_tokens;
  const text = textAnswer(call.model.id, seed);
  // null is OpenAI's 'unset' too.
  const limited = json ?? (limit == null ? { text, cut: false } : truncateToTokens(text, limit));
  const content = typeof limited === "string" ? limited : limited.text;
  const finish = typeof limited !== "string" && limited.cut ? "length" : "stop";
  const completionTokens = countTextTokens(content);
  return {
    ...base,
    choices: [{ index: 0, message: { role: "assistant", content, refusal: null }, finish_reason: finish }],
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
}
