// Chooses whose key serves a project's call to a provider (issue 4 item 7): the project's own key
// when it stored one (BYOK: no markup), else the operator's. A gw key marked `byok` is served only
// with the project's own keys, so its requests can never be billed at the operator's rates.
// Resolved adapters are cached per project for a short time; admin writes clear the cache.
import type { SecretBox } from "../lib/secret-box.ts";
import type { ProviderKeysRepo } from "../store/repos/provider-keys.ts";
import { createProvider, type ProviderRegistry } from "./registry.ts";
import type { TransportOptions } from "./transport.ts";
import type { Provider } from "./types.ts";

export interface ResolvedProvider {
  provider: Provider;
  byok: boolean;
}

const TTL_MS = 2_000;
const MAX_PROJECTS = 10_000;

export class ProjectProviders {
  private cache = new Map<string, { own: Map<string, Provider>; expires: number }>();

  constructor(
    private readonly repo: ProviderKeysRepo,
    private readonly box: SecretBox,
    private readonly operator: ProviderRegistry,
    private readonly transport: TransportOptions,
    private readonly onError: (err: unknown, projectId: string, provider: string) => void,
  ) {}

  resolve(projectId: string, providerId: string, byokOnly: boolean): ResolvedProvider | undefined {
    const own = this.ownProviders(projectId).get(providerId);
    if (own) return { provider: own, byok: true };
    if (byokOnly) return undefined;
    const provider = this.operator.get(providerId);
    return provider ? { provider, byok: false } : undefined;
  }

  clear(): void {
    this.cache.clear();
  }

  private ownProviders(projectId: string): Map<string, Provider> {
    const now = Date.now();
    const hit = this.cache.get(projectId);
    if (hit && hit.expires > now) return hit.own;
    const own = new Map<string, Provider>();
    for (const k of this.repo.list(projectId)) {
      try {
        const provider = createProvider(k.provider, { apiKey: this.box.open(k.sealedKey), baseUrl: k.baseUrl }, this.transport);
        if (provider) own.set(k.provider, provider);
      } catch (err) {
        // A key sealed under another GW_SECRET_KEY cannot be used; said loudly, the key skipped.
        this.onError(err, projectId, k.provider);
      }
    }
    if (this.cache.size >= MAX_PROJECTS) this.cache.clear();
    this.cache.set(projectId, { own, expires: now + TTL_MS });
    return own;
  }
}
