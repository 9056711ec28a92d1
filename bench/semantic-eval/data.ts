// The evaluation data of the semantic cache (issue 7), read in place from ../shared/data/semantic
// (see its SOURCE.md) and never copied into the repository: GPTCache's mock pairs (protocol A) and a
// Quora Question Pairs development split (protocol C).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { QqpPair } from "./split.ts";

export const DATA_DIR = process.env.GW_SEMANTIC_DATA ?? fileURLToPath(new URL("../../../shared/data/semantic/", import.meta.url));

export interface Query {
  text: string;
  /** Cached texts that count as a correct answer; empty when the cache holds none (a hit is then wrong). */
  correct: Set<string>;
}

export interface Protocol {
  name: string;
  description: string;
  cached: string[];
  queries: Query[];
}

function requireFile(name: string): string {
  const path = join(DATA_DIR, name);
  if (!existsSync(path)) throw new Error(`missing ${path}: the evaluation reads ../shared/data/semantic (set GW_SEMANTIC_DATA to move it)`);
  return path;
}

/** (A) GPTCache's own: cache every `origin`, query each `similar`; correct = that pair's own origin. */
export async function protocolA(): Promise<Protocol> {
  const pairs = (await Bun.file(requireFile("gptcache_mock_data.json")).json()) as Array<{ origin: string; similar: string }>;
  return {
    name: "A",
    description: `GPTCache mock data: ${pairs.length} pairs, cache every origin, query every similar, top-1`,
    cached: [...new Set(pairs.map((p) => p.origin))],
    queries: pairs.map((p) => ({ text: p.similar, correct: new Set([p.origin]) })),
  };
}

/** The QQP dev split's labelled pairs (20,012). */
export async function qqpPairs(): Promise<QqpPair[]> {
  const gz = await Bun.file(requireFile("qqp_dev.json.gz")).bytes();
  return JSON.parse(new TextDecoder().decode(Bun.gunzipSync(gz))) as QqpPair[];
}

/** (C) QQP dev: cache the distinct `text_a`, query the distinct `text_b`; correct = the same text or
 * a question labelled duplicate (label 1) of the query. `pairs`: the whole split, or one side of
 * splitByGroups (split.ts). */
export async function protocolC(pairs?: QqpPair[], name = "C", what = "QQP dev"): Promise<Protocol> {
  pairs ??= await qqpPairs();
  const cached = [...new Set(pairs.map((p) => p.text_a))];
  const inCache = new Set(cached);
  const duplicates = new Map<string, Set<string>>();
  const link = (a: string, b: string): void => {
    let set = duplicates.get(a);
    if (set === undefined) duplicates.set(a, (set = new Set()));
    set.add(b);
  };
  for (const p of pairs) {
    if (p.label !== 1) continue;
    link(p.text_a, p.text_b);
    link(p.text_b, p.text_a);
  }
  const queries = [...new Set(pairs.map((p) => p.text_b))].map((text) => {
    const correct = new Set([...(duplicates.get(text) ?? []), text].filter((t) => inCache.has(t)));
    return { text, correct };
  });
  return {
    name,
    description: `${what}: ${pairs.length} labelled pairs, cache ${cached.length} distinct text_a, query ${queries.length} distinct text_b (${queries.filter((q) => q.correct.size > 0).length} have a correct answer in the cache)`,
    cached,
    queries,
  };
}

/** What the evaluation and the training embed: protocol A's texts, then the whole QQP split's, in
 * this order (the embeddings cache in the temp directory is keyed by this list). */
export function evaluationTexts(a: Protocol, c: Protocol): string[] {
  return [...new Set([a, c].flatMap((p) => [...p.cached, ...p.queries.map((q) => q.text)]))];
}
