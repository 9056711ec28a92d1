// The one-fact mutant set (test/fixtures/guard-mutants.json) through the literal guard alone, by
// language and kind: a mutant the guard refuses both ways cannot hit in any mode with any embedder.
// Usage: bun run bench/semantic-eval/guard-mutants/by-language.ts (guard-set.ts prints it too)
import { disagreement, guardEntities } from "../../../src/cache/semantic-guard.ts";
import set from "../../../test/fixtures/guard-mutants.json";

const differ = (a: string, b: string): boolean => disagreement(guardEntities(a), guardEntities(b)) !== null;
const share = (n: number, of: number): string => `${n} / ${of} (${((100 * n) / Math.max(1, of)).toFixed(1)}%)`;

/** Markdown rows: per language, mutants the guard refuses both ways and paraphrases it blocks. */
export function languageTable(): string[] {
  const kinds = [...new Set(set.mutants.map((m) => m.kind))];
  const lines = [
    `# The mutant set by language: ${set.mutants.length} mutants, ${set.paraphrases.length} paraphrases, through the literal guard\n`,
    `| language | mutants refused both ways | ${kinds.join(" | ")} | paraphrases blocked |`,
    `|---|---|${kinds.map(() => "---|").join("")}---|`,
  ];
  for (const lang of [...new Set(set.mutants.map((m) => m.lang)), "all"]) {
    const ms = set.mutants.filter((m) => lang === "all" || m.lang === lang);
    const ps = set.paraphrases.filter((p) => lang === "all" || p.lang === lang);
    const refused = ms.filter((m) => differ(m.original, m.variant) && differ(m.variant, m.original));
    for (const m of ms) if (!refused.includes(m)) console.error(`MUTANT PASSES THE GUARD: ${m.original} | ${m.variant}`);
    const byKind = kinds.map((k) => {
      const mine = ms.filter((m) => m.kind === k);
      return mine.length === 0 ? "-" : `${refused.filter((m) => m.kind === k).length}/${mine.length}`;
    });
    const blocked = ps.filter((p) => differ(p.original, p.paraphrase)).length;
    lines.push(`| ${lang} | ${share(refused.length, ms.length)} | ${byKind.join(" | ")} | ${share(blocked, ps.length)} |`);
  }
  return lines;
}

if (import.meta.main) for (const line of languageTable()) console.log(line);
