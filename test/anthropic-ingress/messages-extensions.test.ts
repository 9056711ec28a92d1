// gw's extension fields and headers on POST /v1/messages (issue 20 item 7), as chat reads them: the
// response cache (and X-Gw-Cache: off), tags, workflow and step, metadata, X-Gw-Trace-Id, and
// Idempotency-Key replays; a live key before a scripted OpenAI-format upstream counts the calls.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import type { ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { openaiUpstream, startGw } from "../helpers/start-gw.ts";
import { get, type TestGw } from "../helpers/test-gw.ts";

let gw: TestGw;
let up: ScriptedUpstream;
let key: string;
let client: Anthropic;
let n = 0;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ gw, upstreams: { openai: up }, stop } = await startGw({ upstreams: { openai: openaiUpstream() } }));
  key = gw.key({ mode: "live", scopes: ["chat", "requests"] });
  client = new Anthropic({ apiKey: key, baseURL: gw.url.replace(/\/v1$/, ""), maxRetries: 0 });
});
afterAll(() => stop());
beforeEach(() => up.reset());

/** A question no other test asks, so each test starts cold. */
const fresh = () => `What is the capital of Australia? (case ${++n})`;
const body = (content: string) => ({ model: "openai/gpt-4o-mini", max_tokens: 50, messages: [{ role: "user" as const, content }] });

async function logEntry(id: string): Promise<Record<string, unknown>> {
  await gw.drain();
  const res = await get(`${gw.url}/requests/${id}`, key);
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

describe("the response cache", () => {
  test("a repeat is an exact hit, answered as a Message; X-Gw-Cache: off skips it", async () => {
    const q = fresh();
    const first = await client.messages.create(body(q)).withResponse();
    expect(first.response.headers.get("x-gw-cache")).toBe("miss");
    const second = await client.messages.create(body(q)).withResponse();
    expect(up.callCount("/v1/chat/completions")).toBe(1);
    expect(second.response.headers.get("x-gw-cache")).toBe("exact");
    expect(second.response.headers.get("x-gw-provider")).toBe("cache");
    expect(second.data.content).toEqual(first.data.content);
    expect(second.data.type).toBe("message");
    expect(Reflect.get(second.data, "gw")).toMatchObject({ cache: "exact" });
    const third = await client.messages.create(body(q), { headers: { "x-gw-cache": "off" } }).withResponse();
    expect(third.response.headers.get("x-gw-cache")).toBe("miss");
    expect(up.callCount("/v1/chat/completions")).toBe(2);
  });

  test("a streamed repeat is served from the cache in Anthropic's event sequence", async () => {
    const q = fresh();
    const first = await client.messages.stream(body(q)).finalMessage();
    const stream = client.messages.stream(body(q));
    const second = await stream.finalMessage();
    const { response } = await stream.withResponse();
    expect(response.headers.get("x-gw-cache")).toBe("exact");
    expect(up.callCount("/v1/chat/completions")).toBe(1);
    expect(second.content).toEqual(first.content);
    expect(second.stop_reason).toBe("end_turn");
  });

  test("the body's cache.mode bypass is honoured too", async () => {
    const q = fresh();
    await client.messages.create(body(q));
    const params = { ...body(q), cache: { mode: "bypass" } };
    const again = await client.messages.create(params as Anthropic.MessageCreateParamsNonStreaming).withResponse();
    expect(again.response.headers.get("x-gw-cache")).toBe("miss");
    expect(up.callCount("/v1/chat/completions")).toBe(2);
  });
});

describe("labels and trace headers", () => {
  test("tags, gw.workflow_id, gw.step and X-Gw-Trace-Id reach the log; metadata labels do not go upstream", async () => {
    const params = { ...body(fresh()), tags: ["claude-code", "ci"], gw: { workflow_id: "wf-anthropic", step: "plan" }, metadata: { user_id: "u-7", task: "qa" } };
    const { response } = await client.messages
      .create(params as Anthropic.MessageCreateParamsNonStreaming, { headers: { "x-gw-trace-id": "trc_anthropic_ingress_1" } })
      .withResponse();
    const entry = await logEntry(response.headers.get("x-gw-request-id")!);
    expect(entry).toMatchObject({ endpoint: "messages", tags: ["claude-code", "ci"], workflow_id: "wf-anthropic", step: "plan", trace_id: "trc_anthropic_ingress_1", task: "qa" });
    const sent = up.calls.at(-1)!.body as Record<string, unknown>;
    for (const field of ["tags", "gw", "metadata"]) expect(sent[field]).toBeUndefined();
    expect(sent.user).toBe("u-7");
  });

  test("a bad X-Gw-Trace-Id is a 400 invalid_request_error naming the header", async () => {
    const err = await client.messages
      .create(body(fresh()), { headers: { "x-gw-trace-id": "x".repeat(41) } })
      .then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect((err as InstanceType<typeof Anthropic.BadRequestError>).type).toBe("invalid_request_error");
  });
});

describe("Idempotency-Key", () => {
  test("the same key and body replay the stored Message; the upstream is called once", async () => {
    const params = body(fresh());
    const headers = { "idempotency-key": `anthropic-${n}` };
    const first = await client.messages.create(params, { headers }).withResponse();
    const second = await client.messages.create(params, { headers }).withResponse();
    expect(second.response.headers.get("idempotent-replayed")).toBe("true");
    expect(second.data).toEqual(first.data);
    expect(up.callCount("/v1/chat/completions")).toBe(1);
  });
});
