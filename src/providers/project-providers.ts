// Chooses whose key serves a project's call (docs/providers.md "Bring your own keys"): the project's
// own when stored, else the operator's; a `byok` gw key only the project's. A stored key that cannot
// be opened fails closed (503), never falls back to the operator's key.
import { createHash } from "node:crypto";
import { GwError } from "../errors/gw-error.ts";
import { systemClock, type Clock } from "../lib/clock.ts";
import type { SecretBox } from "../lib/secret-box.ts";
import type { ProviderKeysRepo } from "../store/repos/provider-keys.ts";
import { createProvider, type ProviderRegistry } from "./registry.ts";
import type { TransportOptions } from "./transport.ts";
import type { Provider } from "./types.ts";

export interface ResolvedProvider {
  provider: Provider;
  byok: boolean;
  /** BYOK only: the project and credential whose own circuit breakers its outcomes feed
   * (routing/health.ts), so one project's failing key or endpoint never opens the shared one. */
  healthKey?: string;
}

const TTL_MS = 2_000;
const MAX_PROJECTS = 10_000;

/** A stored key that could not be opened: requests to its provider fail, they do not fall back. */
const UNOPENABLE = "unopenable" as const;

type Own = Map<string, ResolvedProvider | typeof UNOPENABLE>;

export function unopenableKeyError(providerId: string): GwError {
  return new GwError(
    "provider_unavailable",
    `This project's own ${providerId} provider key cannot be opened (it was sealed under another gw secret key: secret.key lost or GW_SECRET_KEY changed). ` +
      "An admin must store the key again; gw does not fall back to the operator's key.",
  );
}

/** Per project and credential: a replaced key or endpoint starts with a fresh breaker. */
function healthKeyOf(projectId: string, provider: string, sealedKey: string, baseUrl: string | null): string {
  const credential = createHash("sha256").update(`${sealedKey}\u0000${baseUrl ?? ""}`).digest("hex").slice(0, 16);
  return `byok:${projectId}:${provider}:${credential}`;
}

export class ProjectProviders {
  private cache = new Map<string, { own: Own; expires: number }>();

  constructor(
    private readonly repo: ProviderKeysRepo,
    private readonly box: SecretBox,
    private readonly operator: ProviderRegistry,
    private readonly transport: TransportOptions,
    private readonly onError: (err: unknown, projectId: string, provider: string) => void,
    /** Ages the per-project cache (TTL_MS); buildDeps passes Deps' clock. */
    private readonly clock: Clock = systemClock,
  ) {}

  /** Throws provider_unavailable when the project stored a key for this provider that cannot be opened. */
  resolve(projectId: string, providerId: string, byokOnly: boolean): ResolvedProvider | undefined {
    const own = this.ownProviders(projectId).get(providerId);
    if (own === UNOPENABLE) throw unopenableKeyError(providerId);
    if (own) return own;
    if (byokOnly) return undefined;
    const provider = this.operator.get(providerId);
    return provider ? { provider, byok: false } : undefined;
  }

  /** Start-up: every stored key is opened once; each that cannot be is reported (onError), so a
   * lost secret.key is said loudly before the first request. Returns how many failed. */
  checkSealedKeys(): number {
    let failed = 0;
    for (const k of this.repo.listAll()) {
      try {
        this.box.open(k.sealedKey);
      } catch (err) {
        failed++;
        this.onError(err, k.projectId, k.provider);
      }
    }
    return failed;
  }

  clear(): void {
    this.cache.clear();
  }

  private ownProviders(projectId: string): Own {
    const now = this.clock.now();
    const hit = this.cache.get(projectId);
    if (hit && hit.expires > now) return hit.own;
    const own: Own = new Map();
    for (const k of this.repo.list(projectId)) {
      let apiKey: string;
      try {
        apiKey = this.box.open(k.sealedKey);
      } catch (err) {
        // Sealed under another GW_SECRET_KEY: said loudly, and the provider refused for this project.
        this.onError(err, projectId, k.provider);
        own.set(k.provider, UNOPENABLE);
        continue;
      }
      const provider = createProvider(k.provider, { apiKey, baseUrl: k.baseUrl }, this.transport);
      if (provider) own.set(k.provider, { provider, byok: true, healthKey: healthKeyOf(projectId, k.provider, k.sealedKey, k.baseUrl) });
    }
    if (this.cache.size >= MAX_PROJECTS) this.cache.clear();
    this.cache.set(projectId, { own, expires: now + TTL_MS });
    return own;
  }
}
