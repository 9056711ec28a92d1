// How long a stored answer lives, and the tags it is stored with (docs/cache.md "TTL and tags"):
// TTL by content, the most perishable first, unless the project's `cache_ttl` overrides it.
import type { ChatRequest } from "../canonical/chat.ts";
import type { GwOptions } from "../schema/chat-completions.ts";

/** The analyser's task and subtype (the pipeline's detected task). */
interface DetectedTask {
  task: string;
  subtype: string;
}

const HOUR = 3600;
const DAY = 24 * HOUR;

export type TtlClass = "prices" | "faq" | "stable_task" | "generated" | "default" | "policy";

const TTL_SECONDS: Record<Exclude<TtlClass, "policy">, number> = {
  prices: HOUR, faq: 7 * DAY, stable_task: 7 * DAY, generated: 6 * HOUR, default: DAY,
};

/** Words that make an answer go stale with the catalogue (live-data cues skip the cache before this). */
const PRICES = /\b(?:prices?|pricing|priced|costs?|fees?|catalogu?e|products?|stock|inventory|skus?|in stock|discounts?|tariffs?|rates?|plans? and pricing)\b/i;
const STABLE_TASKS = new Set(["translation", "classification", "summarization", "extraction"]);
/** Generated content: the creative kind, and code written from a description. */
const isGenerated = (t: DetectedTask): boolean => t.task === "creative" || (t.task === "coding" && t.subtype === "code_generation");
/** A detected FAQ: a short factual, definition or how-to question with nothing before it. */
const FAQ_SUBTYPES = new Set(["factual", "definition", "how_to"]);
const FAQ_MAX_TOKENS = 120;

function userText(req: ChatRequest): string {
  let text = "";
  for (const m of req.messages) {
    if (m.role !== "user") continue;
    if (typeof m.content === "string") text += `${m.content}\n`;
    else for (const p of m.content ?? []) if (p.type === "text" && typeof p.text === "string") text += `${p.text}\n`;
  }
  return text;
}

export function ttlOf(req: ChatRequest, task: DetectedTask, tags: readonly string[], inputTokens: number, policyTtl: unknown): { seconds: number; class: TtlClass } {
  if (typeof policyTtl === "number" && Number.isFinite(policyTtl) && policyTtl > 0) return { seconds: Math.floor(policyTtl), class: "policy" };
  const pick = (c: Exclude<TtlClass, "policy">) => ({ seconds: TTL_SECONDS[c], class: c });
  if (PRICES.test(userText(req))) return pick("prices");
  const singleQuestion = req.messages.filter((m) => m.role === "user").length === 1;
  if (tags.includes("faq") || (task.task === "qa" && FAQ_SUBTYPES.has(task.subtype) && singleQuestion && inputTokens <= FAQ_MAX_TOKENS)) return pick("faq");
  if (STABLE_TASKS.has(task.task)) return pick("stable_task");
  if (isGenerated(task)) return pick("generated");
  return pick("default");
}

const stringList = (v: unknown): string[] => (Array.isArray(v) ? v.filter((t): t is string => typeof t === "string") : []);

/** The caller's cache tags (`cache.tags`, `gw.cache.tags`) and the automatic ones, deduplicated. */
export function cacheTagsOf(options: GwOptions, projectId: string, task: DetectedTask): string[] {
  const gw = options.gw ?? {};
  const tags = [
    ...(options.cache?.tags ?? []),
    ...(gw.cache?.tags ?? []),
    `project:${projectId}`,
    `subtype:${task.subtype}`,
  ];
  if (typeof gw.versions?.knowledge === "string") tags.push(`knowledge:${gw.versions.knowledge}`);
  if (typeof gw.agent === "string") tags.push(`agent:${gw.agent}`);
  return [...new Set(tags)];
}
