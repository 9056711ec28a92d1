// The package as npm ships it: it typechecks, the committed dist/ is exactly what src/ builds to,
// it has no runtime dependency, and `npm pack` packs dist/ with the README and CHANGELOG.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VERSION } from "../dist/index.js";

const root = join(import.meta.dir, "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Record<string, unknown>;

function run(cmd: string[], cwd = root): { code: number; out: string; stdout: string } {
  const proc = Bun.spawnSync(cmd, { cwd, stdout: "pipe", stderr: "pipe", env: { ...process.env, npm_config_update_notifier: "false" } });
  const stdout = proc.stdout.toString();
  return { code: proc.exitCode, out: `${stdout}${proc.stderr.toString()}`, stdout };
}

describe("gw-client package", () => {
  test("name gw-client, version 1.1.0 (= VERSION), ESM with types, Node 20+, no runtime dependency", () => {
    expect(pkg.name).toBe("gw-client");
    expect(pkg.version).toBe("1.1.0");
    expect(VERSION).toBe("1.1.0");
    expect(pkg.type).toBe("module");
    expect(pkg.engines).toEqual({ node: ">=20" });
    expect(pkg.exports).toMatchObject({ ".": { types: "./dist/index.d.ts", import: "./dist/index.js" } });
    for (const field of ["dependencies", "peerDependencies", "optionalDependencies", "bundleDependencies"]) expect(pkg[field]).toBeUndefined();
    const imports = readdirSync(join(root, "dist")).filter((f) => f.endsWith(".js"))
      .flatMap((f) => [...readFileSync(join(root, "dist", f), "utf8").matchAll(/from "([^"]+)"/g)].map((m) => m[1] ?? ""));
    expect(imports.filter((spec) => !spec.startsWith("./") && !spec.startsWith("node:"))).toEqual([]);
  });

  test("typechecks with its own tsconfig (tsc --noEmit -p clients/node)", () => {
    const { code, out } = run(["bunx", "tsc", "--noEmit", "-p", "."]);
    expect(out).toBe("");
    expect(code).toBe(0);
  });

  test("the committed dist/ is exactly what src/ builds to", () => {
    const out = mkdtempSync(join(tmpdir(), "gw-client-build-"));
    try {
      const built = run(["bunx", "tsc", "-p", ".", "--outDir", out]);
      expect(built.out).toBe("");
      const fresh = readdirSync(out).sort();
      expect(readdirSync(join(root, "dist")).sort()).toEqual(fresh);
      for (const file of fresh) expect(`${file}:\n${readFileSync(join(root, "dist", file), "utf8")}`).toBe(`${file}:\n${readFileSync(join(out, file), "utf8")}`);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  test("npm pack --dry-run packs dist/, README.md and CHANGELOG.md, nothing else", () => {
    const { code, stdout } = run(["npm", "pack", "--dry-run", "--json"]);
    expect(code).toBe(0);
    const [info] = JSON.parse(stdout) as Array<{ name: string; version: string; files: Array<{ path: string }> }>;
    expect(info?.name).toBe("gw-client");
    expect(info?.version).toBe("1.1.0");
    const paths = (info?.files ?? []).map((f) => f.path).sort();
    expect(paths).toContain("dist/index.js");
    expect(paths).toContain("dist/index.d.ts");
    expect(paths).toContain("README.md");
    expect(paths).toContain("CHANGELOG.md");
    expect(paths.filter((p) => !p.startsWith("dist/") && !["README.md", "CHANGELOG.md", "package.json"].includes(p))).toEqual([]);
  });
});
