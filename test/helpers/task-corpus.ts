// Reads the task corpus (test/fixtures/task-corpus/, format in its LABELS.md) and turns each entry into
// the chat request the analyzer and the router see. Shared by the classifier's training script, the
// routing evaluation and the tests, so that all of them read the same requests.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { KINDS, type TaskKind } from "../../src/analysis/kinds.ts";
import type { ChatMessage, ChatRequest } from "../../src/canonical/chat.ts";

export const CORPUS_DIR = join(import.meta.dir, "..", "fixtures", "task-corpus");

export type Complexity = "low" | "medium" | "high";
export interface Pad { tokens: number; kind: "prose" | "log" | "code" | "csv" | "json"; at: "before" | "after" }
export interface CorpusEntry {
  id: string;
  prompt?: string;
  messages?: Array<{ role: "system" | "user" | "assistant"; content: string }>;
  task: TaskKind;
  language: string;
  complexity: Complexity;
  shape?: string;
  tools?: boolean;
  image?: boolean;
  json?: boolean;
  pad?: Pad;
  /** The file it came from (set by the loader). */
  file?: string;
}

const COMPLEXITIES: readonly string[] = ["low", "medium", "high"];
const PAD_KINDS: readonly string[] = ["prose", "log", "code", "csv", "json"];

/** Throws on the first malformed entry, naming its file and id, so a writer's mistake is loud. */
function check(e: CorpusEntry, file: string): void {
  const where = `${file} ${e.id ?? "(no id)"}`;
  if (typeof e.id !== "string" || e.id === "") throw new Error(`${where}: id missing`);
  if ((e.prompt === undefined) === (e.messages === undefined)) throw new Error(`${where}: give prompt or messages, not both`);
  if (e.messages && e.messages.at(-1)?.role !== "user") throw new Error(`${where}: the last message must be the user's`);
  if (!(KINDS as readonly string[]).includes(e.task)) throw new Error(`${where}: unknown task ${e.task}`);
  if (typeof e.language !== "string" || !/^[a-z]{2}$/.test(e.language)) throw new Error(`${where}: language must be ISO 639-1`);
  if (!COMPLEXITIES.includes(e.complexity)) throw new Error(`${where}: complexity must be low, medium or high`);
  if (e.tools && e.task !== "agent") throw new Error(`${where}: a request with tools is labelled agent`);
  if (e.task === "agent" && !e.tools) throw new Error(`${where}: agent needs tools: true`);
  if (e.task === "vision" && !e.image) throw new Error(`${where}: vision needs image: true`);
  if (e.image && !e.tools && e.task !== "vision") throw new Error(`${where}: a request with an image and no tools is labelled vision`);
  if (e.pad && (!PAD_KINDS.includes(e.pad.kind) || !(e.pad.tokens > 0) || (e.pad.at !== "before" && e.pad.at !== "after"))) throw new Error(`${where}: bad pad`);
}

/** Every entry of the files whose names start with `prefix` ("train-" or "holdout-"), checked. */
export function loadCorpus(prefix: "train-" | "holdout-"): CorpusEntry[] {
  const out: CorpusEntry[] = [];
  const seen = new Set<string>();
  for (const name of readdirSync(CORPUS_DIR).filter((n) => n.startsWith(prefix) && n.endsWith(".json")).sort()) {
    const entries = JSON.parse(readFileSync(join(CORPUS_DIR, name), "utf8")) as CorpusEntry[];
    for (const e of entries) {
      check(e, name);
      if (seen.has(e.id)) throw new Error(`${name} ${e.id}: duplicate id`);
      seen.add(e.id);
      out.push({ ...e, file: name });
    }
  }
  return out;
}

const PAD_LINES: Record<Pad["kind"], (i: number) => string> = {
  prose: (i) => `Section ${i}. The committee reviewed the quarterly figures, noted that regional demand shifted towards smaller orders, and asked the operations team to report on delivery times and supplier contracts before the next meeting.`,
  log: (i) => `2026-03-0${(i % 9) + 1}T10:${String(i % 60).padStart(2, "0")}:12Z INFO worker-${i % 7} processed batch ${i} in ${(i * 37) % 900} ms (queue depth ${(i * 13) % 40})`,
  code: (i) => `function step${i}(input) {\n  const total = input.items.reduce((sum, item) => sum + item.price * item.qty, 0);\n  return { id: ${i}, total, ok: total > ${i % 50} };\n}`,
  csv: (i) => `${i},ACME-${i % 97},${(i * 7) % 365} days,${((i * 31) % 1000) / 10},${i % 3 === 0 ? "EU" : "US"}`,
  json: (i) => `{"id": ${i}, "customer": "C-${(i * 17) % 5000}", "amount": ${((i * 29) % 10000) / 100}, "status": "${i % 4 === 0 ? "refunded" : "paid"}"},`,
};

/** o200k tokens per line of each kind, measured, so that a pad comes within ~5% of its size. */
const TOKENS_PER_LINE: Record<Pad["kind"], number> = { prose: 38, log: 31, code: 48, csv: 16, json: 29 };

/** About `tokens` tokens of material, the same for the same arguments. */
export function padText(pad: Pad): string {
  const lines: string[] = [];
  const count = Math.max(1, Math.round(pad.tokens / TOKENS_PER_LINE[pad.kind]));
  for (let i = 1; i <= count; i++) lines.push(PAD_LINES[pad.kind](i));
  return lines.join("\n");
}

const IMAGE = { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } } as const;
const TOOL = { type: "function", function: { name: "lookup", description: "Look something up", parameters: { type: "object", properties: { query: { type: "string" } } } } } as const;

/** The chat request for an entry: its messages, the pad in the last user turn, an image part,
 * a tool and response_format as the entry says. */
export function corpusRequest(e: CorpusEntry): ChatRequest {
  const turns: ChatMessage[] = e.messages ? e.messages.map((m) => ({ role: m.role, content: m.content })) : [{ role: "user", content: e.prompt ?? "" }];
  const last = turns[turns.length - 1];
  if (last && typeof last.content === "string") {
    let text = last.content;
    if (e.pad) text = e.pad.at === "before" ? `${padText(e.pad)}\n\n${text}` : `${text}\n\n${padText(e.pad)}`;
    last.content = e.image ? [{ type: "text", text }, IMAGE] : text;
  }
  const req: ChatRequest = { model: "gw-auto", messages: turns };
  if (e.tools) req.tools = [TOOL];
  if (e.json) req.response_format = { type: "json_object" };
  return req;
}
