// Claude Code's own model ids through GW_CONFIG aliases (docs/anthropic.md "Claude Code"): a Sonnet
// id and a dated Haiku id reach the Anthropic catalog models, any other claude-* id gw-auto, and
// the log keeps the id that was sent.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import type { ScriptedAnthropic } from "../helpers/scripted-anthropic.ts";
import { anthropicUpstream, startGw } from "../helpers/start-gw.ts";
import type { TestGw } from "../helpers/test-gw.ts";

let gw: TestGw;
let up: ScriptedAnthropic;
let client: Anthropic;
let stop: () => Promise<void>;
const dir = mkdtempSync(join(tmpdir(), "gw-claude-aliases-"));

beforeAll(async () => {
  const config = join(dir, "gw.json");
  writeFileSync(config, JSON.stringify({
    aliases: { "claude-sonnet-*": "anthropic/claude-sonnet-4-5", "claude-haiku-*": "anthropic/claude-haiku-4-5", "claude-*": "gw-auto" },
  }));
  ({ gw, upstreams: { anthropic: up }, stop } = await startGw({ upstreams: { anthropic: anthropicUpstream() }, env: { GW_CONFIG: config } }));
  client = new Anthropic({ apiKey: gw.key({ mode: "live", scopes: ["chat"] }), baseURL: gw.url.replace(/\/v1$/, ""), maxRetries: 0 });
});
afterAll(async () => {
  await stop();
  rmSync(dir, { recursive: true, force: true });
});

test("claude-sonnet-4-6 and claude-haiku-4-5-20251001 answer from the Anthropic catalog models", async () => {
  const sonnet = await client.messages
    .create({ model: "claude-sonnet-4-6", max_tokens: 4_000, messages: [{ role: "user", content: "hi" }] })
    .withResponse();
  expect(sonnet.data.model).toBe("anthropic/claude-sonnet-4-5");
  const haiku = await client.messages.stream({ model: "claude-haiku-4-5-20251001", max_tokens: 512, messages: [{ role: "user", content: "title?" }] }).finalMessage();
  expect(haiku.model).toBe("anthropic/claude-haiku-4-5");
  expect(up.callCount()).toBe(2);
  await gw.drain();
  const row = gw.deps.repos.requests.get(gw.projectId, sonnet.response.headers.get("x-gw-request-id")!);
  expect(row).toMatchObject({ requestedModel: "claude-sonnet-4-6", selectedModel: "anthropic/claude-sonnet-4-5", endpoint: "messages" });
});

test("any other claude-* id is routed by gw-auto", async () => {
  const m = await client.messages.create({ model: "claude-opus-4-7", max_tokens: 64, messages: [{ role: "user", content: "hi" }] });
  expect(m.type).toBe("message");
  expect(m.model.length).toBeGreaterThan(0);
});
