// Comments point into docs/ as `docs/api.md "Errors"` (file, then quoted headings); this checks that
// every cited page and heading exists, and that no comment names the specification's own files.
// `bun scripts/check-doc-refs.ts [dir...]` (default: src) prints each breach and exits 1 on any.
import { Glob } from "bun";
import { existsSync } from "node:fs";
import { resolve } from "node:path";

export interface DocRefReport {
  /** `file:line: docs/x.md "Heading"` for each reference whose page or heading is missing. */
  missing: string[];
  /** `file:line` for each line that names a file outside the repository. */
  outside: string[];
  /** How many references were checked. */
  checked: number;
}

const REF = /docs\/([a-z0-9-]+\.md)((?:\s*(?:,|and)?\s*"[^"\n]+")*)/g;
const QUOTED = /"([^"\n]+)"/g;
const OUTSIDE = /gateway-api|contracts\.md|shared\//;

/** A page's headings, as written after the `#`s, inline code marks kept. */
function headingsOf(markdown: string): Set<string> {
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const m = !fenced && /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (m) out.add(m[1]!);
  }
  return out;
}

export async function checkDocRefs(root = resolve(import.meta.dir, ".."), dirs = ["src"]): Promise<DocRefReport> {
  const pages = new Map<string, Set<string> | null>();
  const page = async (name: string): Promise<Set<string> | null> => {
    if (!pages.has(name)) {
      const path = `${root}/docs/${name}`;
      pages.set(name, existsSync(path) ? headingsOf(await Bun.file(path).text()) : null);
    }
    return pages.get(name)!;
  };
  const report: DocRefReport = { missing: [], outside: [], checked: 0 };
  for (const dir of dirs) {
    for (const file of new Glob("**/*.{ts,sql,md}").scanSync(`${root}/${dir}`)) {
      const lines = (await Bun.file(`${root}/${dir}/${file}`).text()).split("\n");
      for (const [i, line] of lines.entries()) {
        const where = `${dir}/${file}:${i + 1}`;
        if (OUTSIDE.test(line)) report.outside.push(where);
        for (const m of line.matchAll(REF)) {
          const headings = await page(m[1]!);
          report.checked++;
          if (!headings) { report.missing.push(`${where}: docs/${m[1]} (no such page)`); continue; }
          for (const q of m[2]!.matchAll(QUOTED)) {
            if (!headings.has(q[1]!)) report.missing.push(`${where}: docs/${m[1]} "${q[1]}"`);
          }
        }
      }
    }
  }
  return report;
}

if (import.meta.main) {
  const dirs = process.argv.slice(2);
  const report = await checkDocRefs(undefined, dirs.length ? dirs : undefined);
  for (const m of report.missing) console.log(`missing: ${m}`);
  for (const o of report.outside) console.log(`outside the repository: ${o}`);
  console.log(`${report.checked} references checked, ${report.missing.length} missing, ${report.outside.length} naming files outside the repository`);
  if (report.missing.length || report.outside.length) process.exit(1);
}
