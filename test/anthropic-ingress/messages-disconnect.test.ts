// A client that leaves a streamed /v1/messages (issue 20 item 7): the upstream attempt is aborted and
// the request is logged 499 with what was produced metered, as on chat (docs/availability.md).
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { ScriptedAnthropic } from "../helpers/scripted-anthropic.ts";
import { anthropicUpstream, startGw } from "../helpers/start-gw.ts";
import type { TestGw } from "../helpers/test-gw.ts";
import { waitFor } from "../helpers/wait-for.ts";

let gw: TestGw;
let up: ScriptedAnthropic;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ gw, upstreams: { anthropic: up }, stop } = await startGw({
    upstreams: { anthropic: anthropicUpstream({ chunkDelayMs: 20, text: "tide ".repeat(400) }) },
  }));
});
afterAll(() => stop());

test("leaving mid-stream aborts the upstream and logs 499 with the output produced", async () => {
  const controller = new AbortController();
  const res = await fetch(`${gw.url}/messages`, {
    method: "POST",
    signal: controller.signal,
    headers: { "content-type": "application/json", "x-api-key": gw.key({ mode: "live", scopes: ["chat"] }) },
    body: JSON.stringify({ model: "anthropic/claude-haiku-4-5", max_tokens: 2_000, stream: true, messages: [{ role: "user", content: "Go on." }] }),
  });
  const requestId = res.headers.get("x-gw-request-id")!;
  const reader = res.body!.getReader();
  let received = "";
  while ((received.match(/event: content_block_delta/g) ?? []).length < 3) {
    const { value, done } = await reader.read();
    if (done) break;
    received += new TextDecoder().decode(value);
  }
  controller.abort();
  await reader.cancel().catch(() => undefined);
  await up.until("aborted", 1);
  await waitFor(async () => {
    await gw.drain();
    return gw.deps.repos.requests.get(gw.projectId, requestId) !== null;
  }, { what: "the request's log row" });
  const row = gw.deps.repos.requests.get(gw.projectId, requestId)!;
  expect(row.endpoint).toBe("messages");
  expect(row.status).toBe(499);
  expect(row.outputTokens).toBeGreaterThan(0);
});
