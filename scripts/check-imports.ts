// The layer rules of docs/architecture.md, checked: imports go downward only, no import circles,
// and only the HTTP edge imports elysia. `bun scripts/check-imports.ts` prints every breach.
import { Glob } from "bun";
import { dirname, relative, resolve } from "node:path";

/** Layer of each top-level directory under src/ (a file at src/ itself is the composition root). */
export const LAYERS: Record<string, number> = {
  "(root)": 9, cli: 9,
  http: 8, dashboard: 8,
  ingress: 7,
  pipeline: 6,
  admin: 5, auth: 5, analysis: 5, guard: 5, routing: 5, cache: 5, providers: 5, billing: 5,
  observability: 5, optimization: 5, monitoring: 5, audit: 5,
  store: 4,
  canonical: 3,
  schema: 2,
  errors: 1, config: 1,
  lib: 0,
};
const ELYSIA_ALLOWED = new Set(["http", "dashboard"]);
const IMPORT = /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

export interface ImportReport {
  cycles: string[][];
  upward: string[];
  elysia: string[];
  unknownDirs: string[];
}

const area = (file: string): string => (file.includes("/") ? file.split("/")[0]! : "(root)");

export async function checkImports(srcRoot = resolve(import.meta.dir, "../src")): Promise<ImportReport> {
  const files = [...new Glob("**/*.ts").scanSync(srcRoot)].filter((f) => !f.endsWith(".d.ts"));
  const known = new Set(files);
  const edges = new Map<string, string[]>();
  const report: ImportReport = { cycles: [], upward: [], elysia: [], unknownDirs: [] };
  for (const file of files) {
    const text = await Bun.file(`${srcRoot}/${file}`).text();
    const targets: string[] = [];
    for (const m of text.matchAll(IMPORT)) {
      const spec = (m[1] ?? m[2])!;
      if (spec === "elysia" || spec.startsWith("elysia/") || spec.startsWith("@elysiajs/")) {
        if (!ELYSIA_ALLOWED.has(area(file))) report.elysia.push(file);
        continue;
      }
      if (!spec.startsWith(".")) continue;
      let target = relative(srcRoot, resolve(srcRoot, dirname(file), spec));
      if (!known.has(target) && known.has(`${target}.ts`)) target = `${target}.ts`;
      if (!known.has(target) && known.has(`${target}/index.ts`)) target = `${target}/index.ts`;
      if (known.has(target)) targets.push(target);
    }
    edges.set(file, targets);
  }
  for (const [from, targets] of edges) {
    const a = area(from);
    if (LAYERS[a] === undefined && !report.unknownDirs.includes(a)) report.unknownDirs.push(a);
    for (const to of targets) {
      const b = area(to);
      if (a !== b && (LAYERS[b] ?? -1) > (LAYERS[a] ?? -1)) report.upward.push(`${from} -> ${to}`);
    }
  }
  report.cycles = stronglyConnected(edges).filter((c) => c.length > 1);
  // Directories of one layer may import one another, but never in a circle.
  const dirEdges = new Map<string, string[]>();
  for (const [from, targets] of edges) {
    for (const to of targets) {
      const a = area(from), b = area(to);
      if (a !== b && LAYERS[a] === LAYERS[b]) dirEdges.set(a, [...(dirEdges.get(a) ?? []), b]);
    }
  }
  for (const c of stronglyConnected(dirEdges)) if (c.length > 1) report.cycles.push(c.map((d) => `${d}/`));
  return report;
}

/** Tarjan's strongly connected components. */
function stronglyConnected(edges: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>(), low = new Map<string, number>(), onStack = new Set<string>();
  const stack: string[] = [], out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next); low.set(v, next); next++; stack.push(v); onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)); }
      else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do { w = stack.pop()!; onStack.delete(w); component.push(w); } while (w !== v);
    out.push(component);
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return out;
}

if (import.meta.main) {
  const r = await checkImports();
  for (const c of r.cycles) console.log(`circle: ${c.join(" -> ")}`);
  for (const u of r.upward) console.log(`upward: ${u}`);
  for (const e of r.elysia) console.log(`elysia outside http/: ${e}`);
  for (const d of r.unknownDirs) console.log(`directory with no layer: src/${d}`);
  console.log(`${r.cycles.length} circles, ${r.upward.length} upward imports, ${r.elysia.length} elysia imports outside http/`);
  process.exit(r.cycles.length + r.upward.length + r.elysia.length + r.unknownDirs.length > 0 ? 1 : 0);
}
