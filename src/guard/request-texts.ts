// Every text a request carries to a provider (docs/guard.md "What is scanned"): message contents,
// string or text parts, in every role (system prompts and tool results included), and the
// arguments of the assistant's tool calls; for /embeddings, each input. Strings are replaced in
// place, so objects keep their identity (the /responses codec knows its instructions message by it).
import type { ChatRequest } from "../providers/types.ts";

export type TextMap = (text: string) => string;

export function mapChatTexts(request: ChatRequest, map: TextMap): void {
  for (const m of request.messages) {
    if (typeof m.content === "string") m.content = map(m.content);
    else if (Array.isArray(m.content)) {
      for (const part of m.content) if (part.type === "text" && typeof part.text === "string") part.text = map(part.text);
    }
    for (const call of m.tool_calls ?? []) {
      if (typeof call.function?.arguments === "string") call.function.arguments = map(call.function.arguments);
    }
  }
}

export function mapInputs(input: string[], map: TextMap): string[] {
  return input.map(map);
}
