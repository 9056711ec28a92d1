// GW_PUBLIC_URL (README "Configuration"): the status JSON's page.url names where users reach gw,
// else the listening address; a malformed value stops start-up with the variable's name.
import { expect, test } from "bun:test";
import { loadConfig } from "../../../src/config/env.ts";
import { statusPageUrl } from "../../../src/monitoring/status/status-page.ts";

const urlFor = (env: Record<string, string>, flags: Record<string, string> = {}) => {
  const config = loadConfig(flags, env);
  return statusPageUrl(config.host, config.port, config.publicUrl);
};

test("page.url: GW_PUBLIC_URL when set (a trailing slash dropped), else the listening address", () => {
  expect(urlFor({ GW_PUBLIC_URL: "https://gw.example.com/" })).toBe("https://gw.example.com/status");
  expect(urlFor({ GW_PUBLIC_URL: "https://example.com/llm" })).toBe("https://example.com/llm/status");
  expect(urlFor({}, { port: "9000" })).toBe("http://127.0.0.1:9000/status");
  expect(urlFor({}, { port: "9000", host: "0.0.0.0" })).toBe("http://localhost:9000/status");
});

test("a GW_PUBLIC_URL that is not an http(s) URL is refused, naming the variable", () => {
  for (const bad of ["gw.example.com", "ftp://gw.example.com", "https://gw.example.com/?x=1"]) {
    expect(() => loadConfig({}, { GW_PUBLIC_URL: bad })).toThrow(/GW_PUBLIC_URL/);
  }
});
