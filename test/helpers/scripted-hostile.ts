// A hostile upstream for gw's availability tests (test/hostile/upstream-*.test.ts): it answers any
// path (OpenAI, Anthropic and Gemini alike) with a scripted misbehaviour: a stalled body, a silent,
// endless or gated stream, a huge or endless body, garbage frames. It counts the connections gw
// aborted and lets a test await the first call and the first abort, so tests order, never time.

export type HostileReply =
  /** Response headers never come (until gw gives up). */
  | { kind: "hang" }
  /** 200 JSON headers and `head`, then nothing. */
  | { kind: "stall-body"; head: string; declaredLength?: number }
  /** SSE headers, these frames, then silence. */
  | { kind: "silent-stream"; frames: string[] }
  /** SSE headers, `before`, a wait for `gate`, then `after` and the end. */
  | { kind: "gated-stream"; before: string[]; gate: Promise<void>; after: string[] }
  /** SSE headers, then `frame` again and again, for ever. */
  | { kind: "endless-stream"; head?: string; frame: string }
  /** 200 JSON headers, `head`, then `piece` for ever. */
  | { kind: "endless-body"; head: string; piece: string }
  /** A status, content type and body sent whole (garbage, huge answers, malformed JSON). */
  | { kind: "whole"; body: string; contentType?: string; status?: number };

export interface HostileUpstream {
  /** Base URL with /v1 (OPENAI_BASE_URL); `origin` for ANTHROPIC_BASE_URL and GEMINI_BASE_URL. */
  url: string;
  origin: string;
  /** Paths of the requests received, in order. */
  paths: string[];
  /** Connections gw closed (cancelled the body or aborted the request) before the reply ended. */
  aborted: number;
  /** The next `times` requests get this reply; once the queue is empty, the last reply repeats. */
  script(reply: HostileReply, times?: number): void;
  /** Resolves when the n-th request (1-based, counting from now on) has arrived. */
  called(n?: number): Promise<void>;
  /** Resolves once `aborted` reaches n. */
  abortedAt(n?: number): Promise<void>;
  stop(): Promise<void>;
}

const encoder = new TextEncoder();
const SSE = { "content-type": "text/event-stream" };
const JSON_TYPE = { "content-type": "application/json" };

/** Resolves when `cond` holds, re-checked whenever `notify` runs. */
function waiter(): { until(cond: () => boolean): Promise<void>; notify(): void } {
  let waiting: Array<{ cond: () => boolean; resolve: () => void }> = [];
  return {
    until(cond) {
      if (cond()) return Promise.resolve();
      return new Promise((resolve) => waiting.push({ cond, resolve }));
    },
    notify() {
      const still: typeof waiting = [];
      for (const w of waiting) (w.cond() ? w.resolve() : still.push(w));
      waiting = still;
    },
  };
}

export async function startHostileUpstream(): Promise<HostileUpstream> {
  const queue: Array<{ reply: HostileReply; left: number }> = [];
  let last: HostileReply = { kind: "hang" };
  const events = waiter();
  const paths: string[] = [];

  const gone = (): void => {
    api.aborted++;
    events.notify();
  };
  const nextReply = (): HostileReply => {
    const head = queue[0];
    if (!head) return last;
    if (--head.left <= 0) queue.shift();
    return (last = head.reply);
  };

  /** A body driven by `step`: called for every pull, returns false when it has ended. */
  function body(req: Request, step: (c: ReadableStreamDefaultController<Uint8Array>) => Promise<boolean> | boolean): ReadableStream<Uint8Array> {
    let ended = false;
    let counted = false;
    const count = (): void => {
      if (ended || counted) return;
      counted = true;
      gone();
    };
    req.signal.addEventListener("abort", count, { once: true });
    return new ReadableStream<Uint8Array>({
      async pull(c) {
        if (!(await step(c))) {
          ended = true;
          c.close();
        }
      },
      cancel: count,
    }, { highWaterMark: 0 });
  }

  const never = (req: Request): Promise<boolean> =>
    new Promise((resolve) => req.signal.addEventListener("abort", () => resolve(true), { once: true }));

  function respond(reply: HostileReply, req: Request): Response | Promise<Response> {
    switch (reply.kind) {
      case "hang":
        return never(req).then(() => {
          gone();
          return new Response(null, { status: 499 });
        });
      case "whole":
        return new Response(reply.body, { status: reply.status ?? 200, headers: { "content-type": reply.contentType ?? "application/json" } });
      case "stall-body": {
        let sent = false;
        const headers = reply.declaredLength === undefined ? JSON_TYPE : { ...JSON_TYPE, "content-length": String(reply.declaredLength) };
        return new Response(body(req, (c) => (sent ? never(req) : ((sent = true), c.enqueue(encoder.encode(reply.head)), true))), { headers });
      }
      case "silent-stream": {
        let i = 0;
        return new Response(body(req, (c) => (i < reply.frames.length ? (c.enqueue(encoder.encode(reply.frames[i++]!)), true) : never(req))), { headers: SSE });
      }
      case "gated-stream": {
        const frames = [...reply.before, null, ...reply.after];
        let i = 0;
        // Every pull enqueues: Bun's server does not pull again after a pull that enqueued nothing.
        return new Response(body(req, async (c) => {
          while (i < frames.length) {
            const frame = frames[i++];
            if (frame === null) {
              await reply.gate;
              continue;
            }
            c.enqueue(encoder.encode(frame));
            return true;
          }
          return false;
        }), { headers: SSE });
      }
      case "endless-stream": {
        let started = reply.head === undefined;
        const frame = encoder.encode(reply.frame.repeat(Math.max(1, Math.floor(16384 / reply.frame.length))));
        return new Response(body(req, (c) => {
          c.enqueue(started ? frame : encoder.encode(reply.head!));
          started = true;
          return true;
        }), { headers: SSE });
      }
      case "endless-body": {
        let started = false;
        const piece = encoder.encode(reply.piece.repeat(Math.max(1, Math.floor(65536 / reply.piece.length))));
        return new Response(body(req, (c) => {
          c.enqueue(started ? piece : encoder.encode(reply.head));
          started = true;
          return true;
        }), { headers: JSON_TYPE });
      }
    }
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      await req.arrayBuffer();
      paths.push(new URL(req.url).pathname);
      events.notify();
      return respond(nextReply(), req);
    },
  });
  const origin = `http://127.0.0.1:${server.port}`;
  const api: HostileUpstream = {
    url: `${origin}/v1`,
    origin,
    paths,
    aborted: 0,
    script(reply, times = 1) {
      queue.push({ reply, left: times });
    },
    called(n = 1) {
      const target = paths.length + n;
      return events.until(() => paths.length >= target);
    },
    abortedAt(n = 1) {
      return events.until(() => api.aborted >= n);
    },
    async stop() {
      await server.stop(true);
    },
  };
  return api;
}

/** OpenAI chat chunk frames: a role chunk, one content chunk per text, a finish chunk. */
export function openAiFrames(texts: string[], model = "gpt-4o-mini"): string[] {
  const head = `"id":"chatcmpl-hostile","object":"chat.completion.chunk","created":1,"model":"${model}"`;
  const frame = (choice: string): string => `data: {${head},"choices":[${choice}]}\n\n`;
  return [
    frame(`{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}`),
    ...texts.map((t) => frame(`{"index":0,"delta":{"content":${JSON.stringify(t)}},"finish_reason":null}`)),
  ];
}

export const openAiEnd = (model = "gpt-4o-mini"): string[] => [
  `data: {"id":"chatcmpl-hostile","object":"chat.completion.chunk","created":1,"model":"${model}","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n`,
  "data: [DONE]\n\n",
];

/** A whole OpenAI chat completion with this content. */
export const openAiCompletion = (content: string, model = "gpt-4o-mini"): string =>
  JSON.stringify({
    id: "chatcmpl-hostile", object: "chat.completion", created: 1, model,
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 },
  });
