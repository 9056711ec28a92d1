// The compiled gw (test/helpers/gw-binary.ts) from an empty directory: help and the version print
// and exit 0, a mistyped flag exits 2, and the directory stays empty (docs/running.md "Command line").
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import pkg from "../../package.json" with { type: "json" };
import { gwBinary } from "../helpers/gw-binary.ts";
import { freePort } from "../helpers/served.ts";
import { entries, tempDir } from "./run-gw.ts";

const cwd = tempDir("gw-binary-help-");
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

async function run(args: string[]) {
  const proc = Bun.spawn([await gwBinary(), ...args], {
    cwd, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: cwd, PORT: String(freePort()) }, stdout: "pipe", stderr: "pipe", stdin: "ignore",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}

describe("dist/gw in an empty directory", () => {
  test("--help, -h, --version, serve --help and help keys exit 0 and create nothing", async () => {
    const results = [];
    for (const args of [["--help"], ["-h"], ["--version"], ["serve", "--help"], ["help", "keys"]]) results.push(await run(args));
    for (const r of results) expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
    expect(results[0]!.stdout).toMatch(/^Usage:\n {2}gw serve /);
    expect(results[2]!.stdout).toBe(`gw ${pkg.version} (API 2026-10-04)\n`);
    expect(results[3]!.stdout).toMatch(/^Usage: gw serve /);
    expect(entries(cwd)).toEqual([]);
  }, 300_000);

  test("--prot 9000 and an unknown command exit 2 with the usage on stderr, creating nothing", async () => {
    for (const args of [["--prot", "9000"], ["serve", "-p", "9000"], ["projets", "list"]]) {
      const r = await run(args);
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 2, stdout: "" });
      expect(r.stderr).toMatch(/^gw: Unknown (flag|command).*\nUsage:/);
    }
    expect(entries(cwd)).toEqual([]);
  }, 300_000);
});
