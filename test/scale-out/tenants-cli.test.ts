// The offline admin commands in the multi-instance mode (docs/scale-out.md): the data directory is
// one instance's mirror, so each command refuses before opening it, pointing at the admin API.
import { afterAll, expect, test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { runGw, tempDir } from "../cli/run-gw.ts";

const dir = tempDir("gw-tenants-cli-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Well-formed URLs nothing listens on: the refusal comes before any connection.
const SHARED = {
  GW_DATABASE_URL: "postgres://gw:pw@127.0.0.1:1/gw", GW_REDIS_URL: "redis://:pw@127.0.0.1:1/0",
  GW_SECRET_KEY: "tenants-cli-secret-key-0123456789abcdef0123456789",
};

const COMMANDS: string[][] = [
  ["projects", "create", "--name", "p"],
  ["projects", "list"],
  ["keys", "create", "--project", "prj_x"],
  ["keys", "revoke", "key_x"],
  ["provider-keys", "set", "--project", "prj_x", "--provider", "openai", "--key", "sk-x"],
  ["credits", "add", "--project", "prj_x", "--amount", "5"],
];

for (const args of COMMANDS) test(`gw ${args[0]} ${args[1]} refuses in the multi-instance mode and opens nothing`, async () => {
  const data = join(dir, "data");
  const r = await runGw([...args, "--data", data], { cwd: dir, env: SHARED });
  expect(r.code).toBe(1);
  expect(r.stderr).toStartWith(`gw: 'gw ${args[0]} ${args[1]}' reads and writes this machine's data directory only`);
  expect(r.stderr).toContain("Use the admin API of any instance");
  expect(r.stdout).toBe("");
  expect(existsSync(data)).toBe(false);
});
