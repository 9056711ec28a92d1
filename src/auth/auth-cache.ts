// Caches resolved keys for a short time, so the hot path skips hashing and two SQLite lookups.
// Admin changes made through this process clear it at once; changes made by the CLI in another
// process take effect within TTL_MS (docs/decisions.md).
import type { AuthContext } from "./auth-context.ts";

const TTL_MS = 2_000;
const MAX_ENTRIES = 10_000;

export class AuthCache {
  private entries = new Map<string, { auth: AuthContext; expires: number }>();

  get(token: string, now: number): AuthContext | undefined {
    const hit = this.entries.get(token);
    if (!hit) return undefined;
    if (hit.expires > now) return hit.auth;
    this.entries.delete(token);
    return undefined;
  }

  set(token: string, auth: AuthContext, now: number): void {
    // A full cache starts over rather than tracking recency: it only bounds memory.
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(token, { auth, expires: now + TTL_MS });
  }

  clear(): void {
    this.entries.clear();
  }
}
