// Which providers are enabled (contracts.md section 1: a provider is on when its key is set, local
// servers when their base URL is set) and the Provider that serves each.
import { AZURE_DEFAULT_API_VERSION, type Config } from "../config/env.ts";
import { DEFAULT_BASE_URLS, openAICompatibleProvider } from "./openai-compatible/index.ts";
import type { Provider } from "./types.ts";

export interface ProviderRegistry {
  get(providerId: string): Provider | undefined;
  enabled(): string[];
}

export function buildRegistry(config: Config): ProviderRegistry {
  const providers = new Map<string, Provider>();
  const transport = { headersTimeoutMs: config.upstreamTimeoutMs };
  for (const [id, baseUrl] of Object.entries(DEFAULT_BASE_URLS)) {
    const env = config.providers[id];
    if (!env?.apiKey) continue;
    providers.set(id, openAICompatibleProvider(id, {
      baseUrl: env.baseUrl ?? baseUrl,
      apiKey: env.apiKey,
      renameMaxTokensForReasoning: id === "openai",
    }, transport));
  }
  const azure = config.providers["azure-openai"];
  if (azure?.apiKey && azure.baseUrl) {
    providers.set("azure-openai", openAICompatibleProvider("azure-openai", {
      baseUrl: azure.baseUrl,
      apiKey: azure.apiKey,
      azure: { apiVersion: azure.apiVersion ?? AZURE_DEFAULT_API_VERSION },
      renameMaxTokensForReasoning: true,
    }, transport));
  }
  for (const id of ["ollama", "vllm"]) {
    const env = config.providers[id];
    if (env?.baseUrl) providers.set(id, openAICompatibleProvider(id, { baseUrl: env.baseUrl, apiKey: env.apiKey }, transport));
  }
  return {
    get: (id) => providers.get(id),
    enabled: () => [...providers.keys()],
  };
}
