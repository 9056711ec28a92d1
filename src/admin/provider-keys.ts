// Projects' own provider keys (issue 4 item 7): validated against the adapters gw has, sealed
// before they are stored, and never shown again; the view carries everything but the key.
import { GwError } from "../errors/gw-error.ts";
import type { SecretBox } from "../lib/secret-box.ts";
import { ADAPTER_IDS, createProvider } from "../providers/registry.ts";
import { DEFAULT_TRANSPORT } from "../providers/transport.ts";
import type { ProviderKeysRepo, StoredProviderKey } from "../store/repos/provider-keys.ts";
import type { ProviderKeyBody } from "../schema/admin.ts";

export const providerKeyView = (k: StoredProviderKey) => ({
  object: "provider_key",
  project_id: k.projectId,
  provider: k.provider,
  base_url: k.baseUrl,
  updated_at: new Date(k.updatedAt).toISOString(),
});

export function putProviderKey(repo: ProviderKeysRepo, box: SecretBox, projectId: string, provider: string, body: ProviderKeyBody) {
  if (!ADAPTER_IDS.includes(provider)) {
    throw new GwError("invalid_request", `Unknown provider '${provider}'. Known: ${ADAPTER_IDS.join(", ")}.`, { param: "provider" });
  }
  const baseUrl = body.base_url ?? null;
  // Azure and local servers cannot be addressed without their own URL.
  if (!createProvider(provider, { apiKey: body.api_key, baseUrl }, DEFAULT_TRANSPORT)) {
    throw new GwError("invalid_request", `Provider '${provider}' needs a base_url.`, { param: "base_url" });
  }
  const stored: StoredProviderKey = { projectId, provider, sealedKey: box.seal(body.api_key), baseUrl, updatedAt: Date.now() };
  repo.put(stored);
  return providerKeyView(stored);
}

export function deleteProviderKey(repo: ProviderKeysRepo, projectId: string, provider: string) {
  if (!repo.delete(projectId, provider)) {
    throw new GwError("not_found", `Project '${projectId}' has no key for '${provider}'.`, { param: "provider" });
  }
  return { object: "provider_key", project_id: projectId, provider, deleted: true };
}
