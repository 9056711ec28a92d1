// The availability bench's client side: sends one hostile case (bounded by a client deadline),
// reads its answer to the end, checks the envelope, and probes GET /v1/models back to back.
import type { Gw } from "../lib/processes.ts";
import type { HostileCase } from "./cases.ts";

/** The bound: a hostile request ends within 20 s; past 25 s the client gives up. */
const CLIENT_DEADLINE_MS = 25_000;
/** The 503s of docs/api.md "Errors", answered before or instead of an upstream call. */
const SPECIFIED_503 = new Set(["no_model_available", "provider_unavailable", "service_unavailable"]);

export interface Outcome {
  status: number;
  code: string | null;
  ms: number;
  versionHeader: boolean;
  envelope: boolean;
  /** A stream that ended with an in-stream error. */
  streamError: string | null;
  failure: string | null;
}

function bodyOf(c: HostileCase): string | ReadableStream<Uint8Array> {
  const body = c.body();
  if (typeof body === "string") return body;
  const chunks = body.chunked.map((s) => new TextEncoder().encode(s));
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks.shift();
      if (next) controller.enqueue(next);
      else controller.close();
    },
  });
}

export async function send(gw: Gw, c: HostileCase): Promise<Outcome> {
  const t0 = performance.now();
  const key = c.key === "live" ? gw.liveKey : gw.testKey;
  try {
    const res = await fetch(gw.url + c.path, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...c.headers },
      body: bodyOf(c),
      signal: AbortSignal.timeout(CLIENT_DEADLINE_MS),
    });
    const text = await res.text();
    const outcome: Outcome = {
      status: res.status, code: null, ms: performance.now() - t0, versionHeader: res.headers.get("x-gw-api-version") !== null,
      envelope: true, streamError: null, failure: null,
    };
    if (res.status !== 200) {
      try {
        const error = (JSON.parse(text) as { error?: { code?: unknown; message?: unknown; type?: unknown } }).error;
        outcome.code = typeof error?.code === "string" ? error.code : null;
        outcome.envelope = typeof error?.message === "string" && typeof error?.type === "string" && outcome.code !== null;
      } catch {
        outcome.envelope = false;
      }
    } else if (res.headers.get("content-type")?.includes("event-stream")) {
      const m = text.match(/"error":\{[^}]*"code":"([a-z_]+)"/);
      outcome.streamError = m ? m[1]! : null;
    }
    return outcome;
  } catch (err) {
    return { status: 0, code: null, ms: performance.now() - t0, versionHeader: false, envelope: false, streamError: null, failure: String(err) };
  }
}

/** What is wrong with an answer by issue 14's rules, or null. */
export function checkAnswer(o: Outcome): string | null {
  if (o.status === 0) return `no answer (${o.failure})`;
  if (!o.versionHeader) return "no X-Gw-Api-Version";
  if (!o.envelope) return "outside the envelope";
  if (o.status >= 500 && !(o.status === 503 && SPECIFIED_503.has(o.code ?? ""))) return `${o.status} ${o.code}`;
  if (o.streamError === "internal_error") return "in-stream internal_error";
  return null;
}

/** GET /v1/models back to back until stopped; resolves with every latency in ms. */
export function probeModels(gw: Gw): { stop(): Promise<number[]> } {
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      const res = await fetch(`${gw.url}/models`, { headers: { authorization: `Bearer ${gw.testKey}` }, signal: AbortSignal.timeout(CLIENT_DEADLINE_MS) }).catch(() => null);
      await res?.arrayBuffer();
      latencies.push(performance.now() - t0);
      await Bun.sleep(20);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return latencies;
    },
  };
}
