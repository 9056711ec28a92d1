// `gw config check` (docs/running.md "Command line", docs/config.md): the environment and the
// GW_CONFIG file read exactly as serve reads them; `ok` and 0, or the error and 1; nothing started.
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { entries, runGw, tempDir } from "./run-gw.ts";

const cwd = tempDir("gw-config-check-");
afterAll(() => rmSync(cwd, { recursive: true, force: true }));
const file = (name: string, text: string): string => {
  const path = join(cwd, name);
  writeFileSync(path, text);
  return path;
};

describe("gw config check", () => {
  test("no file and a default environment: ok, exit 0, no data directory made", async () => {
    const r = await runGw(["config", "check"], { cwd });
    expect(r).toEqual({ code: 0, stdout: "ok\n", stderr: "" });
    expect(entries(cwd)).toEqual([]);
  });

  test("a valid file, named by GW_CONFIG or by --config: ok", async () => {
    const good = file("good.json", JSON.stringify({ models: [{ id: "openai/gpt-4o-mini", input_price: 0.12 }], aliases: { "my-model": "openai/gpt-4o-mini" } }));
    expect((await runGw(["config", "check"], { cwd, env: { GW_CONFIG: good } })).stdout).toBe("ok\n");
    expect((await runGw(["config", "check", "--config", good], { cwd })).stdout).toBe("ok\n");
  });

  test("what serve would refuse is printed with exit 1: the file, the JSON path, the variable", async () => {
    const unknownKey = file("unknown.json", JSON.stringify({ models: [], modles: [] }));
    const badJson = file("bad.json", "{ models: [");
    const badAlias = file("alias.json", JSON.stringify({ aliases: { "my-model": "openai/gpt-99" } }));
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ GW_CONFIG: unknownKey }, new RegExp(`GW_CONFIG ${unknownKey}: .*modles`)],
      [{ GW_CONFIG: badJson }, new RegExp(`GW_CONFIG ${badJson}: not valid JSON`)],
      [{ GW_CONFIG: badAlias }, /aliases\["my-model"\].*openai\/gpt-99/],
      [{ GW_CONFIG: join(cwd, "missing.json") }, /GW_CONFIG file not found/],
      [{ GW_LOG_RETENTION_DAYS: "a month" }, /GW_LOG_RETENTION_DAYS/],
      [{ GW_ADMIN_TOKEN: "short" }, /GW_ADMIN_TOKEN/],
    ];
    for (const [env, message] of cases) {
      const r = await runGw(["config", "check"], { cwd, env });
      expect({ env, code: r.code, stdout: r.stdout }).toEqual({ env, code: 1, stdout: "" });
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect(entries(cwd).filter((e) => !e.endsWith(".json"))).toEqual([]);
  });

  test("serve's flags are checked too: a bad --port is a usage mistake (exit 2)", async () => {
    const r = await runGw(["config", "check", "--port", "70000"], { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--port must be/);
  });
});
