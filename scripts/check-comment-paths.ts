// Every file a source comment names exists in the repository (a path, or the tail of one:
// `stages/parse.ts`, `docs/api.md`). `bun scripts/check-comment-paths.ts` prints each breach.
import { Glob } from "bun";
import { resolve } from "node:path";

/** Names that are not repository files on purpose: files gw writes in its data directory at run
 * time, the embedder package's model.json, and the `.d.ts` suffix itself. */
const RUNTIME_FILES = new Set(["rate-limits.json", "gw.lock", "gw.sqlite", "secret.key", "model.json", ".d.ts"]);
const NAMED = /[A-Za-z0-9_.\-/]*[A-Za-z0-9_-]\.(?:ts|md|json|sql|toml|sh)\b/g;
const COMMENT = /\/\/[^\n]*|\/\*[\s\S]*?\*\//g;

export async function checkCommentPaths(root = resolve(import.meta.dir, ".."), dirs = ["src"]): Promise<string[]> {
  const files = [...new Glob("**/*").scanSync({ cwd: root, onlyFiles: true })]
    .filter((f) => !f.startsWith("node_modules/") && !f.startsWith(".git/") && !f.startsWith("dist/"));
  const known = (name: string): boolean => {
    const p = name.replace(/^(\.\.?\/)+/, "").replace(/^\//, "");
    return RUNTIME_FILES.has(p) || files.some((f) => f === p || f.endsWith(`/${p}`));
  };
  const missing: string[] = [];
  for (const dir of dirs) {
    for (const file of new Glob(`${dir}/**/*.ts`).scanSync(root)) {
      const text = await Bun.file(`${root}/${file}`).text();
      for (const comment of text.matchAll(COMMENT)) {
        for (const name of comment[0].matchAll(NAMED)) if (!known(name[0])) missing.push(`${file}: ${name[0]}`);
      }
    }
  }
  return missing;
}

if (import.meta.main) {
  const missing = await checkCommentPaths(undefined, process.argv.slice(2).length ? process.argv.slice(2) : ["src"]);
  for (const m of missing) console.log(`names no repository file: ${m}`);
  console.log(`${missing.length} comments name a file that is not in the repository`);
  process.exit(missing.length > 0 ? 1 : 0);
}
