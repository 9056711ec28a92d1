// Reads a Chrome-format .cpuprofile (what `bun --cpu-prof` writes) and summarises it as markdown:
// the top functions by self and by inclusive time with file:line, and the time by pipeline stage
// (the nearest src/pipeline/stages/ frame on the stack) and by area (the leaf's nearest src/ frame).
import { readFileSync } from "node:fs";

interface CallFrame { functionName: string; url: string; lineNumber: number; columnNumber: number }
interface Node { id: number; callFrame: CallFrame; children?: number[] }
interface Profile { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

const SRC = "/src/";

/** `src/x/y.ts:12` for frames in the repository, the URL's tail or `(native)` otherwise. */
function where(f: CallFrame): string {
  const i = f.url.lastIndexOf(SRC);
  const file = i >= 0 ? f.url.slice(i + 1) : f.url.includes("node_modules") ? f.url.slice(f.url.lastIndexOf("node_modules")) : f.url || "(native)";
  return f.url ? `${file}:${f.lineNumber + 1}` : file;
}
const nameOf = (f: CallFrame) => f.functionName || "(anonymous)";

/** The stage a source file's work belongs to (the brief's grouping), from its path under src/. */
export function area(url: string): string {
  const i = url.lastIndexOf(SRC);
  if (i < 0) return url.includes("node_modules") ? "dependencies" : "runtime / native";
  const p = url.slice(i + SRC.length);
  const rules: Array<[RegExp, string]> = [
    [/^(http|ingress|server\.ts|services\.ts|deps\.ts)/, "http/ingress"],
    [/^auth/, "auth"],
    [/^analysis|^pipeline\/stages\/analyze/, "analysis"],
    [/^routing|^pipeline\/(eligibility|stages\/route)/, "routing"],
    [/^guard|^pipeline\/stages\/guard/, "guard"],
    [/^billing|^pipeline\/stages\/(reserve|meter|rate-limit)/, "billing / limits"],
    [/^providers|^pipeline\/stages\/call|^pipeline\/attempt/, "provider call"],
    [/^cache|^pipeline\/(cache|stages\/cache)/, "cache"],
    [/trace|^pipeline\/error-trace/, "trace"],
    [/^store\/repos\/cache/, "cache"],
    [/^store|^observability|^pipeline\/stages\/record|^monitoring/, "record / log encoding"],
    [/^(canonical|schema)/, "parse / canonical"],
  ];
  for (const [re, name] of rules) if (re.test(p)) return name;
  return `other (${p.split("/")[0]})`;
}

/** The pipeline step a frame's file stands for, or null: stages, and the work after the answer. */
function stageOf(url: string): string | null {
  const m = url.match(/src\/pipeline\/stages\/([\w-]+)\.ts/);
  if (m) return `stage ${m[1]}`;
  if (url.includes("src/cache/write-queue")) return "cache write queue (flush)";
  if (url.includes("src/pipeline/finish")) return "finish (after the stages)";
  if (url.includes("src/http/")) return "http (routes, serialisers)";
  return null;
}

export interface Summary { markdown: string; totalMs: number }

/** `window`: the part of the run to count, in ms before the profile's end (when the process exited). */
export function summarise(file: string, top = 25, window?: { fromMsBeforeEnd: number; toMsBeforeEnd: number }): Summary {
  const prof = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const key = (f: CallFrame) => `${nameOf(f)}\t${where(f)}`;
  const self = new Map<string, number>();
  const incl = new Map<string, number>();
  const stage = new Map<string, number>();
  const areas = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
  // The sampler records nothing while the thread waits, so a sample's time delta includes the wait
  // before it: every sample counts as one sampling interval (the median delta) of busy time.
  const sorted = [...prof.timeDeltas].sort((a, b) => a - b);
  const dt = (sorted[sorted.length >> 1] ?? 1000) / 1000;
  let total = 0;
  let at = prof.startTime;
  const from = window ? prof.endTime - window.fromMsBeforeEnd * 1000 : -Infinity;
  const to = window ? prof.endTime - window.toMsBeforeEnd * 1000 : Infinity;
  let counted = 0;
  for (let i = 0; i < prof.samples.length; i++) {
    at += prof.timeDeltas[i] ?? 0;
    if (at < from || at > to) continue;
    counted++;
    const leaf = byId.get(prof.samples[i] as number);
    if (!leaf) continue;
    const lf = leaf.callFrame;
    total += dt;
    add(self, key(lf), dt);
    const seen = new Set<string>();
    let stageName: string | null = null;
    let leafArea: string | null = null;
    for (let n: Node | undefined = leaf; n; n = byId.get(parent.get(n.id) ?? -1)) {
      const k = key(n.callFrame);
      if (!seen.has(k)) { seen.add(k); add(incl, k, dt); }
      const u = n.callFrame.url;
      if (leafArea === null && u.includes(SRC)) leafArea = area(u);
      if (stageName === null) stageName = stageOf(u);
    }
    add(stage, stageName ?? `outside the pipeline: ${leafArea ?? area(lf.url)}`, dt);
    add(areas, leafArea ?? area(lf.url), dt);
  }
  const pct = (v: number) => `${((v / total) * 100).toFixed(1)}%`;
  const ms = (v: number) => v.toFixed(0);
  const rows = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
  const fnTable = (m: Map<string, number>) => [
    "| # | function | where | stage | ms | share |", "| ---: | --- | --- | --- | ---: | ---: |",
    ...rows(m, top).map(([k, v], i) => {
      const [fn, loc] = k.split("\t") as [string, string];
      return `| ${i + 1} | \`${fn}\` | ${loc} | ${loc.startsWith("src/") ? area("/" + loc) : area(loc)} | ${ms(v)} | ${pct(v)} |`;
    }),
  ];
  const simple = (title: string, m: Map<string, number>) => [
    `| ${title} | ms | share |`, "| --- | ---: | ---: |", ...rows(m, 40).map(([k, v]) => `| ${k} | ${ms(v)} | ${pct(v)} |`),
  ];
  const markdown = [
    `Busy time sampled: ${ms(total)} ms (${counted} samples, ${(dt * 1000).toFixed(0)} µs apart), ${window ? "the load window only" : "start-up and shut-down included"}; shares are of busy time.`,
    "",
    "### By step (inclusive: the nearest pipeline stage, cache write queue, finish or http frame on the stack)",
    "", ...simple("stage", stage), "",
    "### By area (self time, charged to the leaf's nearest `src/` frame; native work under a gw function counts to that function's area)",
    "", ...simple("area", areas), "",
    `### Top ${top} functions by self time`, "", ...fnTable(self), "",
    `### Top ${top} functions by inclusive time`, "", ...fnTable(incl), "",
  ].join("\n");
  return { markdown, totalMs: total };
}

if (import.meta.main) {
  const file = process.argv[2];
  if (!file) throw new Error("usage: bun bench/lib/cpu-profile.ts FILE.cpuprofile");
  console.log(summarise(file).markdown);
}
