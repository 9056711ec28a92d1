// The references dedupe_documents leaves in place of a repeat (docs/optimization.md "dedupe_documents"),
// written and read here, so history_window can keep what a kept reference points at.
export const toolRef = (callId: string): string => `[Same output as tool call ${callId} above; not repeated]`;
export const textRef = (index: number, begins: string): string => `[Same text as message ${index + 1} above, which begins "${begins}"; not repeated]`;
export const passageRef = (index: number, begins: string): string =>
  `[Same passage as in message ${index + 1} above, which begins "${begins}"; not repeated]`;
export const ownPassageRef = (begins: string): string => `[Same passage as earlier in this text, which begins "${begins}"; not repeated]`;

const TOOL_HEAD = "[Same output as tool call ";
const TOOL_TAIL = " above; not repeated]";
const NUMBERED = ["[Same text as message ", "[Same passage as in message "];

/** What a text's references point at: tool call ids, and 0-based message indexes (the positions the
 * references were written with). A scan with indexOf for each head; texts without "[Same " stop at once. */
export function referencesIn(text: string): { callIds: string[]; indexes: number[] } {
  const callIds: string[] = [];
  const indexes: number[] = [];
  if (!text.includes("[Same ")) return { callIds, indexes };
  if (text.startsWith(TOOL_HEAD) && text.endsWith(TOOL_TAIL)) callIds.push(text.slice(TOOL_HEAD.length, -TOOL_TAIL.length));
  for (const head of NUMBERED) {
    for (let at = text.indexOf(head); at >= 0; at = text.indexOf(head, at + head.length)) {
      let end = at + head.length;
      let n = 0;
      while (end < text.length && text.charCodeAt(end) >= 48 && text.charCodeAt(end) <= 57 && end - at - head.length < 9) n = n * 10 + text.charCodeAt(end++) - 48;
      if (end > at + head.length && n > 0) indexes.push(n - 1);
    }
  }
  return { callIds, indexes };
}
