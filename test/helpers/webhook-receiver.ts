// A scripted webhook receiver on 127.0.0.1: records every request it gets and answers from a script
// (queued replies, then a function, then 200). `verify` checks a delivery as any Standard Webhooks
// receiver would (docs/webhooks.md "Verifying a delivery"), with the `standardwebhooks` package.
import { Webhook } from "standardwebhooks";
import { ScriptQueue } from "./script-queue.ts";
import { waitFor } from "./wait-for.ts";

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The raw body text, exactly the bytes that were signed. */
  body: string;
  /** When it arrived, on the receiver's `now` (the test's clock when one is given). */
  time: number;
}

export interface ReceiverReply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Answer only after this many (real) ms: a slow receiver, or one a timeout gives up on. */
  delayMs?: number;
}

export interface WebhookReceiver {
  /** The URL to register as the endpoint (http://127.0.0.1:<port>/hook). */
  url: string;
  received: ReceivedRequest[];
  /** The next `times` requests get this reply (after them: `respond`, then 200). */
  reply(reply: ReceiverReply, times?: number): void;
  /** Answers every request the queue does not; returning undefined falls through to 200. */
  respond: ((req: ReceivedRequest) => ReceiverReply | undefined) | null;
  /** Resolves once `n` requests have arrived (a real wait, bounded). */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  /**
   * Verifies a request (the last one by default) with `standardwebhooks`' Webhook.verify and returns
   * the parsed envelope, or throws as that package does. The timestamp is judged against `atMs`
   * (default: when the request arrived), since the reference verifier reads Date.now().
   */
  verify(secret: string, req?: ReceivedRequest, atMs?: number): unknown;
  stop(): Promise<void>;
}

/** Runs Webhook.verify as if the wall clock read `atMs` (the package has no clock parameter). */
export function verifyAt(secret: string, body: string, headers: Record<string, string>, atMs: number): unknown {
  const realNow = Date.now;
  Date.now = () => atMs;
  try {
    return new Webhook(secret).verify(body, headers);
  } finally {
    Date.now = realNow;
  }
}

export function startWebhookReceiver(options: { now?: () => number; replies?: ReceiverReply[] } = {}): WebhookReceiver {
  const now = options.now ?? (() => Date.now());
  const queue = new ScriptQueue<ReceiverReply>();
  for (const r of options.replies ?? []) queue.push(r);
  const received: ReceivedRequest[] = [];
  const state = { respond: null as WebhookReceiver["respond"] };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req): Promise<Response> {
      const headers: Record<string, string> = {};
      req.headers.forEach((value, name) => {
        headers[name] = value;
      });
      const record: ReceivedRequest = { method: req.method, path: new URL(req.url).pathname, headers, body: await req.text(), time: now() };
      received.push(record);
      const reply = queue.next() ?? state.respond?.(record) ?? { status: 200 };
      if (reply.delayMs !== undefined) await Bun.sleep(reply.delayMs);
      return new Response(reply.body ?? "", { status: reply.status, headers: reply.headers });
    },
  });

  const receiver: WebhookReceiver = {
    url: `http://127.0.0.1:${server.port}/hook`,
    received,
    reply: (reply, times = 1) => queue.push(reply, times),
    get respond() {
      return state.respond;
    },
    set respond(fn) {
      state.respond = fn;
    },
    async waitFor(n, timeoutMs = 5000) {
      await waitFor(() => received.length >= n, { timeoutMs, what: `${n} webhook request(s) (got ${received.length})` });
      return received.slice(0, n);
    },
    verify(secret, req = received.at(-1), atMs) {
      if (req === undefined) throw new Error("the receiver has received nothing to verify");
      return verifyAt(secret, req.body, req.headers, atMs ?? req.time);
    },
    async stop() {
      await server.stop(true);
    },
  };
  return receiver;
}
