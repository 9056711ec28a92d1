// Which providers are enabled (docs/providers.md "Enabling a provider": a provider is on when its key is set, local
// servers when their base URL is set) and the Provider that serves each. `createProvider` builds
// an adapter from a key and base URL, for the operator's keys and for projects' own (BYOK).
import { AZURE_DEFAULT_API_VERSION, type Config, type ProviderEnv } from "../config/env.ts";
import { ANTHROPIC_BASE_URL, anthropicProvider } from "./anthropic/index.ts";
import { GOOGLE_DEFAULT_BASE_URL, googleProvider } from "./google/index.ts";
import { DEFAULT_BASE_URLS, openAICompatibleProvider } from "./openai-compatible/index.ts";
import type { TransportOptions } from "./transport.ts";
import type { Provider } from "./types.ts";

export interface ProviderRegistry {
  get(providerId: string): Provider | undefined;
  enabled(): string[];
}

const LOCAL = ["ollama", "vllm"];

/** Provider ids gw has an adapter for (catalog `provider` values). */
export const ADAPTER_IDS: readonly string[] = [...Object.keys(DEFAULT_BASE_URLS), "anthropic", "google", "azure-openai", ...LOCAL];

/** The environment's name for a catalog provider: Google's models are enabled by GEMINI_API_KEY. */
const envName = (id: string): string => (id === "google" ? "gemini" : id);

/** An adapter for `id` with this key and base URL (null: the provider's public URL); null when gw
 * has no adapter for it or it cannot be addressed (Azure and local servers need a base URL). */
export function createProvider(id: string, access: ProviderEnv, transport: TransportOptions): Provider | null {
  const { apiKey, baseUrl } = access;
  if (id in DEFAULT_BASE_URLS) {
    return openAICompatibleProvider(id, { baseUrl: baseUrl ?? DEFAULT_BASE_URLS[id]!, apiKey, renameMaxTokensForReasoning: id === "openai" }, transport);
  }
  if (id === "anthropic") return anthropicProvider(id, { baseUrl: baseUrl ?? ANTHROPIC_BASE_URL, apiKey }, transport);
  if (id === "google") return googleProvider(id, { baseUrl: baseUrl ?? GOOGLE_DEFAULT_BASE_URL, apiKey }, transport);
  if (id === "azure-openai" && baseUrl) {
    const azure = { apiVersion: access.apiVersion ?? AZURE_DEFAULT_API_VERSION };
    return openAICompatibleProvider(id, { baseUrl, apiKey, azure, renameMaxTokensForReasoning: true }, transport);
  }
  if (LOCAL.includes(id) && baseUrl) return openAICompatibleProvider(id, { baseUrl, apiKey }, transport);
  return null;
}

export const transportOf = (config: Config): TransportOptions => ({
  headersTimeoutMs: config.upstreamTimeoutMs, streamIdleMs: config.streamIdleTimeoutMs, maxBodyBytes: config.upstreamMaxBodyBytes,
});

export function buildRegistry(config: Config): ProviderRegistry {
  const providers = new Map<string, Provider>();
  const transport = transportOf(config);
  for (const id of ADAPTER_IDS) {
    const env = config.providers[envName(id)];
    // Keyed providers are on with a key; Azure needs its endpoint too; local servers a base URL.
    const on = LOCAL.includes(id) ? Boolean(env?.baseUrl) : Boolean(env?.apiKey);
    const provider = env && on ? createProvider(id, env, transport) : null;
    if (provider) providers.set(id, provider);
  }
  return {
    get: (id) => providers.get(id),
    enabled: () => [...providers.keys()],
  };
}
