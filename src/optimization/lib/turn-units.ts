// The units history_window keeps or drops whole (docs/optimization.md "history_window"): a message,
// or an assistant turn with tool calls together with every tool message that answers them.
import type { ChatMessage } from "../../canonical/chat.ts";

/** [start, end) ranges covering the messages in order. A unit with tool calls runs to the last
 * message answering any of them (whatever lies between comes along), and tool messages right
 * after a unit join it, so dropping a unit never orphans a result or a call. Linear. */
export function turnUnits(messages: readonly ChatMessage[]): [number, number][] {
  const lastAnswer = new Map<string, number>();
  messages.forEach((m, i) => m.role === "tool" && m.tool_call_id !== undefined && lastAnswer.set(m.tool_call_id, i));
  const units: [number, number][] = [];
  const n = messages.length;
  let i = 0;
  while (i < n) {
    const start = i;
    let end = i + 1;
    for (let j = i; j < end; j++) {
      for (const call of messages[j]!.tool_calls ?? []) {
        const k = lastAnswer.get(call.id);
        if (k !== undefined && k >= end) end = k + 1;
      }
      if (j === end - 1) while (end < n && messages[end]!.role === "tool") end++;
    }
    units.push([start, end]);
    i = end;
  }
  return units;
}
