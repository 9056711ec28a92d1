// The processes the scenarios share, started on first use: one scripted upstream, gw, the bare Bun
// proxy and Portkey; and the request each target gets (about 1 KB of body, like published benchmarks).
import { limitedProjectKey, startBareProxy, startDurableFloor, startGw, startMeteringFloor, startPortkey, startUpstream, type Gw } from "./processes.ts";
import { envNumber } from "./stats.ts";
import { VARY, type Target } from "./wrk.ts";

export const settings = {
  rounds: envNumber("BENCH_ROUNDS", 3),
  seconds: envNumber("BENCH_SECONDS", 5),
  warmupSeconds: envNumber("BENCH_WARMUP_SECONDS", 2),
  connections: envNumber("BENCH_CONNECTIONS", 16),
  upstreamDelayMs: envNumber("BENCH_UPSTREAM_DELAY_MS", 0),
  chunkDelayMs: envNumber("BENCH_CHUNK_DELAY_MS", 5),
  words: envNumber("BENCH_STREAM_WORDS", 18),
};

const prompt = "Summarise the following note for a colleague. ".repeat(20).slice(0, 900);
/** Streams ask for the usage chunk on every side: gw always asks its upstream for it (it meters
 * every stream), so a direct call without it would get one chunk less and finish one pacing
 * interval sooner, which is no part of gw's overhead. `vary` puts a per-request token at the
 * prompt's start (wrk fills it in), so no two requests are the same and the cache never hits. */
export const chatBody = (model: string, stream = false, vary = false): string =>
  JSON.stringify({
    model, messages: [{ role: "user", content: vary ? `${VARY} ${prompt}` : prompt }], max_tokens: 64,
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  });

const json = { "content-type": "application/json" };
const bearer = (key: string) => ({ ...json, authorization: `Bearer ${key}` });
/** gw's proxy figures are for the path every request takes: the same request repeated would be
 * answered from the response cache, which has its own scenario (cache-hit). */
const gwHeaders = (key: string, cache = false) => (cache ? bearer(key) : { ...bearer(key), "x-gw-cache": "off" });

export interface TargetOptions {
  stream?: boolean;
  /** A unique prompt per request (see chatBody). */
  vary?: boolean;
  /** gw only: leave the response cache on (by default the request says X-Gw-Cache: off). */
  cache?: boolean;
}

export interface Stack {
  upstream(): Promise<{ url: string; proc: { pid: number } }>;
  gw(): Promise<Gw>;
  /** A second project on the same gw, as a careful operator sets one up: rate limits, prepaid
   * credit and daily and monthly budgets (all far above what a run uses); its live key. */
  gwLimited(): Promise<{ key: string }>;
  bare(): Promise<{ url: string; proc: { pid: number } }>;
  /** bench/metering-floor.ts: the bare proxy plus JSON parse of request and answer and a log record. */
  floor(): Promise<{ url: string; proc: { pid: number } }>;
  /** bench/durable-floor.ts: the metering floor plus gw's log writer and worker (row, trace, charge). */
  durable(): Promise<{ url: string; proc: { pid: number } }>;
  portkey(): Promise<{ url: string; proc: { pid: number } }>;
}

const once = <T>(f: () => Promise<T>): (() => Promise<T>) => {
  let p: Promise<T> | null = null;
  return () => (p ??= f());
};

export function createStack(): Stack {
  const upstream = once(() => startUpstream({ delayMs: settings.upstreamDelayMs, chunkDelayMs: settings.chunkDelayMs, words: settings.words }));
  const gw = once(async () => startGw((await upstream()).url));
  return {
    upstream,
    gw,
    gwLimited: once(async () => ({ key: await limitedProjectKey(await gw(), "bench-limits") })),
    bare: once(async () => startBareProxy((await upstream()).url)),
    floor: once(async () => startMeteringFloor((await upstream()).url)),
    durable: once(async () => startDurableFloor((await upstream()).url)),
    portkey: once(() => startPortkey()),
  };
}

/** The named request targets; each is the same chat request, addressed as that target expects. */
export const targets = {
  direct: async (s: Stack, o: TargetOptions = {}): Promise<Target> =>
    ({ url: `${(await s.upstream()).url}/chat/completions`, body: chatBody("gpt-4o-mini", o.stream, o.vary), headers: bearer("sk-bench") }),
  bare: async (s: Stack, o: TargetOptions = {}): Promise<Target> =>
    ({ url: `${(await s.bare()).url}/chat/completions`, body: chatBody("gpt-4o-mini", o.stream, o.vary), headers: bearer("sk-bench") }),
  floor: async (s: Stack, o: TargetOptions = {}): Promise<Target> =>
    ({ url: `${(await s.floor()).url}/chat/completions`, body: chatBody("gpt-4o-mini", o.stream, o.vary), headers: bearer("floor") }),
  durable: async (s: Stack, o: TargetOptions = {}): Promise<Target> =>
    ({ url: `${(await s.durable()).url}/chat/completions`, body: chatBody("gpt-4o-mini", o.stream, o.vary), headers: bearer("floor") }),
  portkey: async (s: Stack, o: TargetOptions = {}): Promise<Target> => {
    const up = (await s.upstream()).url;
    return {
      url: `${(await s.portkey()).url}/chat/completions`,
      body: chatBody("gpt-4o-mini", o.stream, o.vary),
      headers: { ...bearer("sk-bench"), "x-portkey-provider": "openai", "x-portkey-custom-host": up },
    };
  },
  gwLive: async (s: Stack, o: TargetOptions = {}, gw?: Gw): Promise<Target> => {
    const g = gw ?? (await s.gw());
    return { url: `${g.url}/chat/completions`, body: chatBody("openai/gpt-4o-mini", o.stream, o.vary), headers: gwHeaders(g.liveKey, o.cache) };
  },
  gwLimited: async (s: Stack, o: TargetOptions = {}): Promise<Target> => {
    const g = await s.gw();
    const { key } = await s.gwLimited();
    return { url: `${g.url}/chat/completions`, body: chatBody("openai/gpt-4o-mini", o.stream, o.vary), headers: gwHeaders(key, o.cache) };
  },
  gwTest: async (s: Stack, o: TargetOptions = {}): Promise<Target> => {
    const g = await s.gw();
    return { url: `${g.url}/chat/completions`, body: chatBody("gw-auto", o.stream, o.vary), headers: gwHeaders(g.testKey, o.cache) };
  },
};

/** What a scenario hands back: its section of the report, and its figures for the JSON. */
export interface Section {
  title: string;
  lines: string[];
  data: unknown;
  /** Figures for the headline table at the top of the report. */
  headline?: Array<[string, string]>;
  /** Problems that make the figures untrustworthy (failed requests, ...). */
  problems: string[];
}

export type Scenario = (stack: Stack) => Promise<Section>;
