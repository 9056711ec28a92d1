// Every environment variable is checked at start (docs/config.md "Environment variables"): a bad
// value stops start-up naming the variable, the value and what is expected.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadConfig } from "../../src/config/env.ts";

const errorOf = (env: Record<string, string>, flags: Record<string, string> = {}): string => {
  try {
    loadConfig(flags, env);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`accepted: ${JSON.stringify(env)}`);
};

describe("bad values name the variable, the value and what is expected", () => {
  test.each([
    [{ GW_LOG_LEVEL: "verbose" }, 'Invalid GW_LOG_LEVEL "verbose": expected one of fatal, error, warn, info, debug, trace, silent.'],
    [{ HOST: "http://0.0.0.0" }, 'Invalid HOST "http://0.0.0.0": expected an IP address or host name such as 127.0.0.1, 0.0.0.0, :: or localhost (no scheme).'],
    [{ HOST: "0.0.0.0:8080" }, 'Invalid HOST "0.0.0.0:8080": expected an IP address or host name such as 127.0.0.1, 0.0.0.0, :: or localhost (the port goes in PORT or --port).'],
    [{ PORT: "80a" }, 'Invalid PORT "80a": expected an integer from 0 to 65535 (0: any free port).'],
    [{ PORT: "70000" }, 'Invalid PORT "70000": expected an integer from 0 to 65535 (0: any free port).'],
    [{ GW_WEBHOOK_ALLOW_LOOPBACK: "yes" }, 'Invalid GW_WEBHOOK_ALLOW_LOOPBACK "yes": expected 1 or true to turn it on, 0 or false (or unset) to leave it off.'],
    [{ OPENAI_BASE_URL: "localhost:9000/v1" }, 'Invalid OPENAI_BASE_URL "localhost:9000/v1": expected an http(s) URL such as http://127.0.0.1:11434/v1.'],
    [{ AZURE_OPENAI_BASE_URL: "my-resource" }, 'Invalid AZURE_OPENAI_BASE_URL "my-resource": expected an http(s) URL such as http://127.0.0.1:11434/v1.'],
    [{ GW_TRUSTED_PROXIES: "10.0.0.0/8,proxy" }, 'Invalid GW_TRUSTED_PROXIES entry "proxy": expected IP addresses or CIDR ranges such as 10.0.0.0/8,::1, comma-separated.'],
    [{ GW_SEMANTIC_EMBEDDER: "openai" }, 'Invalid GW_SEMANTIC_EMBEDDER "openai": expected use, ngram, provider or off.'],
    [{ GW_CACHE_MEMORY_MB: "lots" }, 'Invalid GW_CACHE_MEMORY_MB "lots": expected a number of megabytes (0 or more).'],
    [{ GW_UPSTREAM_TIMEOUT_MS: "-5" }, 'Invalid GW_UPSTREAM_TIMEOUT_MS "-5": expected a positive integer (milliseconds).'],
    [{ GW_TEST_TRACES_PER_MIN: "1.5" }, 'Invalid GW_TEST_TRACES_PER_MIN "1.5": expected a whole number (0 or more).'],
  ])("%p", (env, message) => {
    expect(errorOf(env)).toBe(message);
  });

  test("a flag's error names the flag, not the variable", () => {
    expect(errorOf({ HOST: "127.0.0.1" }, { host: "https://x" })).toStartWith('Invalid --host "https://x"');
  });

  test("the admin token is never echoed", () => {
    const message = errorOf({ GW_ADMIN_TOKEN: "short-secret" });
    expect(message).toContain("GW_ADMIN_TOKEN");
    expect(message).not.toContain("short-secret");
  });
});

describe("good values", () => {
  test("addresses, levels and switches in their accepted forms; empty means the default", () => {
    for (const host of ["127.0.0.1", "0.0.0.0", "::", "::1", "localhost", "gw.internal"]) expect(loadConfig({}, { HOST: host }).host).toBe(host);
    for (const level of ["debug", "silent", "error"]) expect(loadConfig({}, { GW_LOG_LEVEL: level }).logLevel).toBe(level);
    expect(loadConfig({}, { GW_WEBHOOK_ALLOW_LOOPBACK: "true" }).webhookAllowLoopback).toBe(true);
    expect(loadConfig({}, { GW_WEBHOOK_ALLOW_LOOPBACK: "0" }).webhookAllowLoopback).toBe(false);
    const defaults = loadConfig({}, { HOST: "", PORT: "", GW_LOG_LEVEL: "", OLLAMA_BASE_URL: "" });
    expect([defaults.host, defaults.port, defaults.logLevel, defaults.providers.ollama?.baseUrl]).toEqual(["127.0.0.1", 8080, "info", null]);
  });
});

test("gw serve with a bad variable exits 1 before creating the data directory, with the message alone", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gw-env-"));
  try {
    const proc = Bun.spawn(["bun", resolve(import.meta.dir, "../../src/main.ts"), "serve", "--data", join(dir, "data")], {
      env: { ...process.env, GW_LOG_LEVEL: "verbose", GW_ADMIN_TOKEN: "", GW_CONFIG: "" },
      stdout: "pipe", stderr: "pipe",
    });
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    expect({ code, stderr }).toEqual({ code: 1, stderr: 'gw: Invalid GW_LOG_LEVEL "verbose": expected one of fatal, error, warn, info, debug, trace, silent.\n' });
    expect(await Bun.file(join(dir, "data")).exists()).toBe(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a malformed GW_OTLP_HEADERS entry is named by its place, never by its text (it may hold a key)", () => {
  const message = errorOf({ GW_OTLP_ENDPOINT: "http://127.0.0.1:4318", GW_OTLP_HEADERS: "x-team=a,Authorization Bearer sk-live" });
  expect(message).toBe("Invalid GW_OTLP_HEADERS entry #2: expected key=value,key2=value2.");
});

test("a name a typo away from one gw reads is reported; other names are left alone", () => {
  const config = loadConfig({}, { GW_LOG_LEVL: "debug", OPENAI_APIKEY: "sk-x", GW_CACHE_MEMORY_MB: "8", PATH: "/bin", HOME: "/root", GW_SOMETHING_ELSE_ENTIRELY: "1" });
  expect(config.misspelledVariables).toEqual(["GW_LOG_LEVL (did you mean GW_LOG_LEVEL?)", "OPENAI_APIKEY (did you mean OPENAI_API_KEY?)"]);
  expect(loadConfig({}, { GW_LOG_LEVEL: "debug", OPENAI_API_KEY: "sk-x" }).misspelledVariables).toEqual([]);
});
