// Keys on the wire for the admin API and the CLI (docs/api.md "Admin API"): the secret only in the
// answer that created it; a listed key carries neither its secret nor its hash.
import type { ApiKey } from "../store/repos/api-keys.ts";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The answer to creating a key: the one time its secret is shown. */
export const issuedKeyView = (key: ApiKey, secret: string) => ({
  object: "key", id: key.id, key: secret, scopes: key.scopes, mode: key.mode, created_at: iso(key.createdAt),
});

export const keyView = (k: Omit<ApiKey, "keyHash">) => ({
  object: "key",
  id: k.id,
  project_id: k.projectId,
  name: k.name,
  mode: k.mode,
  scopes: k.scopes,
  byok: k.byok,
  ip_allowlist: k.ipAllowlist,
  created_at: iso(k.createdAt),
  revoked_at: iso(k.revokedAt),
});
