// Streams that stay silent (a reasoning model thinking): gw writes SSE keep-alive comments while
// the upstream says nothing, and the OpenAI SDK reads through them; abortAll (shutdown after the
// grace period) ends a running stream with its in-stream error (docs/availability.md).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { type HostileUpstream, openAiEnd, openAiFrames } from "../helpers/scripted-hostile.ts";
import { hostileUpstream, startGw } from "../helpers/start-gw.ts";
import { startTestGw, type TestGw } from "../helpers/test-gw.ts";
import { sseData } from "../helpers/flow-helpers.ts";

let up: HostileUpstream;
let gw: TestGw;
let key: string;
let stop: () => Promise<void>;
beforeAll(async () => {
  // A keep-alive every 30 ms of silence; the upstream's own idle limit stays far away.
  ({ gw, upstreams: { openai: up }, stop } = await startGw({
    upstreams: { openai: hostileUpstream("sk-hostile") },
    env: { GW_SEMANTIC_EMBEDDER: "off", GW_SSE_KEEPALIVE_MS: "30", GW_STREAM_IDLE_TIMEOUT_MS: "600000" },
  }));
  key = gw.key({ mode: "live", scopes: ["chat", "models", "requests"] });
});
afterAll(() => stop());

function gate(): { open(): void; promise: Promise<void> } {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { open, promise };
}

/** A fetch for the SDK that calls `onKeepAlive` once the raw bytes carry a keep-alive comment. */
function watchingFetch(onKeepAlive: () => void): typeof fetch {
  const decoder = new TextDecoder();
  const watched = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const res = await fetch(input, init);
    if (!res.body) return res;
    let seen = "";
    const body = res.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, c) {
        seen += decoder.decode(chunk, { stream: true });
        if (seen.includes(": keep-alive\n\n")) onKeepAlive();
        c.enqueue(chunk);
      },
    }));
    return new Response(body, { status: res.status, headers: res.headers });
  };
  return watched as typeof fetch;
}

describe("SSE keep-alive comments", () => {
  test("a silent upstream gets keep-alive comments to the client; the OpenAI SDK ignores them and reads the answer", async () => {
    const thinking = gate();
    up.script({ kind: "gated-stream", before: openAiFrames([]), gate: thinking.promise, after: [...openAiFrames(["Thought", " long"]).slice(1), ...openAiEnd()] });
    // The upstream speaks again only once a keep-alive reached the client: ordering, not timing.
    const client = new OpenAI({ apiKey: key, baseURL: gw.url, maxRetries: 0, fetch: watchingFetch(thinking.open) });
    const stream = await client.chat.completions.create({
      model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "think first" }], stream: true,
    }, { headers: { "x-gw-cache": "off" } });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
    expect(text).toBe("Thought long");
  });

  test("the raw stream carries the comment line between the upstream's chunks", async () => {
    const thinking = gate();
    up.script({ kind: "gated-stream", before: openAiFrames(["a"]), gate: thinking.promise, after: openAiEnd() });
    const res = await fetch(`${gw.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "x-gw-cache": "off" },
      body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "raw" }], stream: true }),
    });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes(": keep-alive\n\n")) {
      const next = await reader.read();
      if (next.done) break;
      text += decoder.decode(next.value, { stream: true });
    }
    thinking.open();
    while (true) {
      const next = await reader.read();
      if (next.done) break;
      text += decoder.decode(next.value, { stream: true });
    }
    const keepAlive = text.indexOf(": keep-alive\n\n");
    expect(keepAlive).toBeGreaterThan(text.indexOf('"a"'));
    expect(keepAlive).toBeLessThan(text.indexOf('"finish_reason":"stop"'));
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
  });
});

describe("abortAll (shutdown past its grace period)", () => {
  test("a running stream ends with the in-stream 503 and [DONE], its upstream aborted; requests after it start no attempt", async () => {
    const other = await startTestGw({ OPENAI_API_KEY: "sk-hostile", OPENAI_BASE_URL: up.url, GW_SEMANTIC_EMBEDDER: "off" });
    try {
      const liveKey = other.key({ mode: "live", scopes: ["chat"] });
      up.script({ kind: "silent-stream", frames: openAiFrames(["partial"]) });
      const aborted = up.aborted;
      const res = await fetch(`${other.url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${liveKey}`, "x-gw-cache": "off" },
        body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "until shutdown" }], stream: true }),
      });
      expect(res.status).toBe(200);
      const inFlight = other.deps.inFlight;
      expect(inFlight.size).toBe(1);
      expect(inFlight.abortAll("shutdown")).toBe(1);
      const data = await sseData(res);
      expect(data.at(-1)).toBe("[DONE]");
      expect((JSON.parse(data.at(-2)!) as { error: { code: string } }).error.code).toBe("service_unavailable");
      await up.abortedAt(aborted + 1);
      await inFlight.idle();
      const calls = up.paths.length;
      const late = await fetch(`${other.url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${liveKey}`, "x-gw-cache": "off" },
        body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "after the abort" }] }),
      });
      expect(late.status).toBe(503);
      expect(((await late.json()) as { error: { code: string } }).error.code).toBe("service_unavailable");
      expect(up.paths.length).toBe(calls);
    } finally {
      await other.stop();
    }
  });
});
