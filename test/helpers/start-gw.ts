// The one harness for tests that put gw in front of scripted upstreams: it starts the upstreams a
// test names, points each provider's <NAME>_API_KEY / <NAME>_BASE_URL at them, starts gw
// (startTestGw) and stops everything, gw first.
import type { Clock } from "../../src/lib/clock.ts";
import { type AnthropicUpstreamOptions, type ScriptedAnthropic, startScriptedAnthropic } from "./scripted-anthropic.ts";
import { type GeminiUpstreamOptions, type ScriptedGemini, startScriptedGemini } from "./scripted-gemini.ts";
import { type HostileUpstream, startHostileUpstream } from "./scripted-hostile.ts";
import { type ScriptedUpstream, startScriptedUpstream, type UpstreamOptions } from "./scripted-upstream.ts";
import { startTestGw, type TestGw } from "./test-gw.ts";

interface Stoppable {
  url: string;
  stop(): Promise<void>;
}

/** What answers for a provider: how to start it and the API key gw is given for it. */
export interface UpstreamSpec<U extends Stoppable = Stoppable> {
  readonly key: string;
  start(): Promise<U>;
}

/** An OpenAI-compatible scripted upstream (OpenAI, DeepSeek, Groq, Mistral, ...). */
export const openaiUpstream = (options: UpstreamOptions = {}, key = "sk-test"): UpstreamSpec<ScriptedUpstream> =>
  ({ key, start: () => startScriptedUpstream(options) });

/** A scripted Anthropic Messages API; it accepts only its key (default "sk-ant-test"). */
export const anthropicUpstream = (options: AnthropicUpstreamOptions = {}): UpstreamSpec<ScriptedAnthropic> =>
  ({ key: options.apiKey ?? "sk-ant-test", start: () => startScriptedAnthropic(options) });

/** A scripted Gemini API; it accepts only its key (default "gm-test"). Name it `gemini`. */
export const geminiUpstream = (options: GeminiUpstreamOptions = {}): UpstreamSpec<ScriptedGemini> =>
  ({ key: options.apiKey ?? "gm-test", start: () => startScriptedGemini(options) });

/**
 * Two OpenAI-compatible upstreams for fallback tests: gw-auto ranks openai/gpt-4o-mini before
 * deepseek/deepseek-chat, so with only these enabled the list is exactly [openai, deepseek].
 */
export const fallbackPair = () => ({ openai: openaiUpstream({}, "sk-a"), deepseek: openaiUpstream({}, "sk-b") });

/** An upstream that misbehaves on cue (slow headers, garbage, cut streams). */
export const hostileUpstream = (key = "sk-test"): UpstreamSpec<HostileUpstream> => ({ key, start: () => startHostileUpstream() });

type Started<M> = { [P in keyof M]: M[P] extends UpstreamSpec<infer U> ? U : never };

export interface Harness<M, S> {
  gw: TestGw;
  /** The started upstreams, by the provider names the test gave. */
  upstreams: Started<M>;
  /** Upstreams gw's environment does not point at (a project's own base_url, say). */
  spare: Started<S>;
  stop(): Promise<void>;
}

/** The environment that sends a provider's calls to `url` with `key` ("azure-openai" -> AZURE_OPENAI_*). */
export function upstreamEnv(provider: string, url: string, key: string): Record<string, string> {
  const upper = provider.toUpperCase().replace(/-/g, "_");
  return { [`${upper}_API_KEY`]: key, [`${upper}_BASE_URL`]: url };
}

/**
 * Starts the named upstreams and a gw pointed at them. One spec object named under several
 * providers is started once and answers for all of them. `env` wins over what the upstreams set.
 */
export async function startGw<M extends Record<string, UpstreamSpec>, S extends Record<string, UpstreamSpec> = Record<never, UpstreamSpec>>(
  options: { upstreams?: M; spare?: S; env?: Record<string, string>; clock?: Clock } = {},
): Promise<Harness<M, S>> {
  const byProvider: Record<string, Stoppable> = {};
  const spare: Record<string, Stoppable> = {};
  const started = new Map<UpstreamSpec, Stoppable>();
  const upstreamVars: Record<string, string> = {};
  const startOnce = async (spec: UpstreamSpec): Promise<Stoppable> => {
    let u = started.get(spec);
    if (!u) started.set(spec, (u = await spec.start()));
    return u;
  };
  try {
    for (const [provider, spec] of Object.entries(options.upstreams ?? {})) {
      const u = (byProvider[provider] = await startOnce(spec));
      Object.assign(upstreamVars, upstreamEnv(provider, u.url, spec.key));
    }
    for (const [name, spec] of Object.entries(options.spare ?? {})) spare[name] = await startOnce(spec);
    const gw = await startTestGw({ ...upstreamVars, ...options.env }, { clock: options.clock });
    return {
      gw,
      upstreams: byProvider as Started<M>,
      spare: spare as Started<S>,
      async stop() {
        await gw.stop();
        await Promise.all([...started.values()].map((u) => u.stop()));
      },
    };
  } catch (err) {
    await Promise.all([...started.values()].map((u) => u.stop()));
    throw err;
  }
}
