// A scripted OTLP/HTTP collector for tests: records every POST /v1/traces (headers and parsed
// body) and answers as scripted (200 by default), so exports can be awaited, never slept for.

export interface OtlpAnyValue {
  stringValue?: string;
  intValue?: string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values: OtlpAnyValue[] };
}
export interface OtlpKeyValue { key: string; value: OtlpAnyValue }
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpKeyValue[];
  status?: { code: number; message?: string };
  links?: Array<{ traceId: string; spanId: string }>;
}
export interface ReceivedExport {
  headers: Headers;
  text: string;
  body: {
    resourceSpans: Array<{
      resource: { attributes: OtlpKeyValue[] };
      scopeSpans: Array<{ scope: { name: string; version?: string }; spans: ReceivedSpan[] }>;
    }>;
  };
}

export type Answer = { status: number; body?: string } | "hang";

export interface OtlpReceiver {
  /** Base address, as GW_OTLP_ENDPOINT takes it. */
  url: string;
  exports: ReceivedExport[];
  spans(): ReceivedSpan[];
  /** Answers for the next POSTs, in order; afterwards 200. */
  script(...answers: Answer[]): void;
  /** Every POST /v1/traces, accepted or not. */
  posts(): number;
  /** Resolves once `n` POSTs have arrived in all, whatever their answer. */
  posted(n: number): Promise<void>;
  /** Resolves once `n` POSTs have been accepted (answered 200) in all. */
  received(n: number): Promise<void>;
  stop(): Promise<void>;
}

export function startOtlpReceiver(): OtlpReceiver {
  const exports: ReceivedExport[] = [];
  const answers: Answer[] = [];
  let waiters: Array<{ ready: () => boolean; resolve: () => void }> = [];
  let posts = 0;
  const wake = () => {
    for (const w of waiters) if (w.ready()) w.resolve();
    waiters = waiters.filter((w) => !w.ready());
  };
  const until = (ready: () => boolean) =>
    ready() ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ ready, resolve }));
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      if (req.method !== "POST" || new URL(req.url).pathname !== "/v1/traces") return new Response("not found", { status: 404 });
      const text = await req.text();
      posts++;
      const answer = answers.shift() ?? { status: 200 };
      if (answer !== "hang" && answer.status === 200) exports.push({ headers: req.headers, text, body: JSON.parse(text) as ReceivedExport["body"] });
      wake();
      if (answer === "hang") return new Promise<Response>(() => {});
      return new Response(answer.body ?? "{}", { status: answer.status, headers: { "content-type": "application/json" } });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    exports,
    posts: () => posts,
    spans: () => exports.flatMap((e) => e.body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans))),
    script: (...next) => void answers.push(...next),
    posted: (n) => until(() => posts >= n),
    received: (n) => until(() => exports.length >= n),
    stop: () => server.stop(true),
  };
}

/** An attribute's value as a plain JS value (ints as numbers). */
export function attr(attrs: OtlpKeyValue[], key: string): string | number | boolean | string[] | undefined {
  const v = attrs.find((a) => a.key === key)?.value;
  if (!v) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  return v.arrayValue?.values.map((x) => x.stringValue ?? "");
}
