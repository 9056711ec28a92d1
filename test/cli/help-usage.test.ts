// Help, the version and usage mistakes (docs/running.md "Command line"): printed and exited before
// anything is opened, so an empty working directory stays empty and no port is taken.
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import pkg from "../../package.json" with { type: "json" };
import { COMMANDS } from "../../src/cli/commands.ts";
import { freePort } from "../helpers/served.ts";
import { entries, runGw, tempDir } from "./run-gw.ts";

const dirs: string[] = [];
const emptyDir = () => {
  const dir = tempDir("gw-cli-help-");
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** True when nothing listens on the port: a server started by mistake would hold it. */
function portFree(port: number): boolean {
  try {
    Bun.serve({ port, hostname: "127.0.0.1", fetch: () => new Response("") }).stop(true);
    return true;
  } catch {
    return false;
  }
}

describe('gw help and version (docs/running.md "Command line")', () => {
  const cases: Array<[string[], RegExp]> = [
    [["--help"], /^Usage:\n {2}gw serve /],
    [["-h"], /^Usage:\n {2}gw serve /],
    [["help"], /^Usage:\n {2}gw serve /],
    [["help", "projects", "update"], /^Usage: gw projects update ID .*--policy JSON/],
    [["help", "keys"], /^Usage:\n {2}gw keys create .*\n {2}gw keys list .*\n {2}gw keys revoke /],
    [["serve", "--help"], /^Usage: gw serve \[--port N\] \[--host H\] \[--data DIR\]/],
    [["serve", "-h"], /^Usage: gw serve /],
    [["backup", "--help"], /^Usage: gw backup DIR/],
    [["keys", "create", "--project", "prj_x", "--help"], /^Usage: gw keys create --project ID/],
    [["--version"], new RegExp(`^gw ${pkg.version.replace(/\./g, "\\.")} \\(API \\d{4}-\\d{2}-\\d{2}\\)\\n$`)],
    [["version"], new RegExp(`^gw ${pkg.version.replace(/\./g, "\\.")} `)],
  ];

  for (const [args, expected] of cases) {
    test(`gw ${args.join(" ")}: prints to stdout, exits 0, creates nothing, binds nothing`, async () => {
      const cwd = emptyDir();
      const port = freePort();
      const r = await runGw(args, { cwd, env: { PORT: String(port) } });
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(expected);
      expect(entries(cwd)).toEqual([]);
      expect(portFree(port)).toBe(true);
    });
  }

  test("the overview lists every command, and each command's help lists each of its flags", async () => {
    const cwd = emptyDir();
    const overview = (await runGw(["--help"], { cwd })).stdout;
    for (const c of COMMANDS) expect(overview).toContain(`gw ${c.path.join(" ")}`);
    const helps = await Promise.all(COMMANDS.map((c) => runGw(["help", ...c.path], { cwd })));
    for (const [i, c] of COMMANDS.entries()) {
      expect(helps[i]!.code).toBe(0);
      for (const flag of Object.keys(c.flags)) expect(helps[i]!.stdout).toContain(`--${flag}`);
    }
    expect(entries(cwd)).toEqual([]);
  });
});

describe("usage mistakes exit 2 with the usage on stderr, before anything is created", () => {
  const cases: Array<[string[], RegExp]> = [
    [["--prot", "9000"], /Unknown flag: --prot/],
    [["serve", "--prot", "9000"], /Unknown flag: --prot/],
    [["-p", "9000"], /Unknown flag: -p/],
    [["serve", "--port"], /--port needs a value/],
    [["serve", "--port", "-1"], /--port must be a whole number from 1 to 65535, or 0 for any free port \(got "-1"\)/],
    [["serve", "--port", "65536"], /from 1 to 65535/],
    [["serve", "--port=9x"], /or 0 for any free port \(got "9x"\)/],
    [["serve", "extra"], /Unexpected argument: extra/],
    [["frobnicate"], /Unknown command: frobnicate/],
    [["projects"], /'gw projects' needs a command/],
    [["projects", "delete", "prj_x"], /Unknown command: projects delete/],
    [["projects", "get"], /'gw projects get' needs ID/],
    [["projects", "create"], /--name is required/],
    [["keys", "create", "--project", "prj_x", "--scops", "chat"], /Unknown flag: --scops/],
    [["keys", "create", "--project", "prj_x", "--test=yes"], /--test takes no value/],
    [["keys", "list"], /--project is required/],
    [["credits", "add", "--project", "prj_x"], /--amount is required/],
    [["backup"], /'gw backup' needs DIR/],
    [["help", "frobnicate"], /No command 'gw frobnicate'/],
    [["version", "--short"], /Unknown flag: --short/],
  ];

  for (const [args, message] of cases) {
    test(`gw ${args.join(" ")}`, async () => {
      const cwd = emptyDir();
      const r = await runGw(args, { cwd });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toMatch(/\nUsage:?\s/);
      expect(entries(cwd)).toEqual([]);
    });
  }

  test("a mistake names the command's own usage, not the whole list", async () => {
    const r = await runGw(["keys", "list", "--prject", "x"], { cwd: emptyDir() });
    expect(r.stderr).toContain("gw keys list --project ID [--data DIR]");
    expect(r.stderr).not.toContain("gw serve");
  });
});
