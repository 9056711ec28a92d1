// A complete answer as the chunk sequence OpenAI streams (role, tool-call deltas, content deltas,
// finish, usage): how test mode and the response cache stream what they already have whole.
import type { ChatChunk, ChatCompletion } from "../canonical/completion.ts";

/** Splits a completion into the chunk sequence OpenAI sends (role, deltas, finish, usage). */
export function* chunksOf(c: ChatCompletion): Generator<ChatChunk> {
  const head = { id: c.id, object: "chat.completion.chunk" as const, created: c.created, model: c.model };
  const choice = c.choices[0];
  yield { ...head, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] };
  for (const [index, call] of (choice?.message.tool_calls ?? []).entries()) {
    yield { ...head, choices: [{ index: 0, delta: { tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] }, finish_reason: null }] };
    for (const piece of call.function.arguments.match(/.{1,16}/gs) ?? []) {
      yield { ...head, choices: [{ index: 0, delta: { tool_calls: [{ index, function: { arguments: piece } }] }, finish_reason: null }] };
    }
  }
  for (const piece of choice?.message.content?.match(/\S+\s*/g) ?? []) {
    yield { ...head, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] };
  }
  yield { ...head, choices: [{ index: 0, delta: {}, finish_reason: choice?.finish_reason ?? "stop" }] };
  yield { ...head, choices: [], usage: c.usage };
}

