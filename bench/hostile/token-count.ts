// Token counting on hostile texts, before (gpt-tokenizer on the whole text) and after
// (src/analysis/tokens.ts). `bun bench/hostile/token-count.ts [before|after] [name]`; without a
// name, every text runs in its own process (before: killed after 30 s) and a table is printed.
import { HOSTILE_TEXTS } from "./inputs.ts";

const [mode = "table", only] = process.argv.slice(2);

async function one(which: "before" | "after", name: string): Promise<void> {
  const text = HOSTILE_TEXTS[name]!();
  const count =
    which === "before"
      ? (t: string) => (require("gpt-tokenizer") as typeof import("gpt-tokenizer")).countTokens(t)
      : (await import("../../src/analysis/tokens.ts")).countTextTokens;
  count("warm up the tables");
  const start = performance.now();
  const tokens = count(text);
  console.log(JSON.stringify({ name, tokens, ms: Math.round(performance.now() - start) }));
}

async function run(which: string, name: string, limitMs: number): Promise<{ tokens?: number; ms?: number }> {
  const proc = Bun.spawn(["bun", import.meta.path, which, name], { stdout: "pipe" });
  const timer = setTimeout(() => proc.kill(), limitMs);
  const out = await new Response(proc.stdout).text();
  clearTimeout(timer);
  await proc.exited;
  return out.trim() ? JSON.parse(out.trim().split("\n").at(-1)!) : {};
}

if (mode === "before" || mode === "after") await one(mode, only!);
else {
  console.log("| input | chars | before: tokens, ms | after: tokens, ms | difference |");
  console.log("|---|---|---|---|---|");
  for (const name of Object.keys(HOSTILE_TEXTS)) {
    if (only && name !== only) continue;
    const chars = HOSTILE_TEXTS[name]!().length;
    const b = await run("before", name, 30_000);
    const a = await run("after", name, 60_000);
    const diff = b.tokens && a.tokens ? `${(((a.tokens - b.tokens) / b.tokens) * 100).toFixed(2)}%` : "-";
    const before = b.ms === undefined ? "> 30 s (killed)" : `${b.tokens}, ${b.ms}`;
    console.log(`| ${name} | ${chars} | ${before} | ${a.tokens}, ${a.ms} | ${diff} |`);
  }
}
