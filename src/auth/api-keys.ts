// gw API keys (docs/api.md "Authentication"): `gw_live_`/`gw_test_` plus a random secret; stored only as SHA-256.
import { DEFAULT_SCOPES, KEY_SCOPES, type KeyScope } from "../config/constants.ts";
import { GwError } from "../errors/gw-error.ts";
import { sha256Hex } from "../lib/hash.ts";
import { newKeyId, newKeySecret } from "../lib/ids.ts";
import type { ApiKey, ApiKeysRepo, KeyMode } from "../store/repos/api-keys.ts";
import type { ProjectsRepo } from "../store/repos/projects.ts";
import type { AuthCache } from "./auth-cache.ts";
import type { AuthContext } from "./auth-context.ts";
import { compileRules } from "./project-rules.ts";

export type { AuthContext } from "./auth-context.ts";

const KEY_PATTERN = /^gw_(live|test)_[0-9a-z]{40}$/;

export interface NewKeyInput {
  projectId: string;
  name?: string | null;
  scopes?: readonly KeyScope[] | null;
  mode?: KeyMode;
  byok?: boolean;
  ipAllowlist?: string[] | null;
}

export const isKeyScope = (s: string): s is KeyScope => (KEY_SCOPES as readonly string[]).includes(s);

/** Creates a key; the plain secret is returned once and never stored. */
export function issueKey(repo: ApiKeysRepo, input: NewKeyInput, now = Date.now()): { key: ApiKey; secret: string } {
  const mode = input.mode ?? "live";
  const secret = `gw_${mode}_${newKeySecret()}`;
  const key = repo.create({
    id: newKeyId(),
    projectId: input.projectId,
    name: input.name ?? null,
    keyHash: sha256Hex(secret),
    mode,
    scopes: [...(input.scopes && input.scopes.length > 0 ? input.scopes : DEFAULT_SCOPES)],
    byok: input.byok ?? false,
    ipAllowlist: input.ipAllowlist ?? null,
    createdAt: now,
    revokedAt: null,
  });
  return { key, secret };
}

const unauthorized = (message: string) => new GwError("invalid_api_key", message);

/** Resolves `Authorization: Bearer <key>` to its project; every failure is 401 invalid_api_key. */
export function authenticate(
  header: string | null,
  repos: { apiKeys: ApiKeysRepo; projects: ProjectsRepo },
  cache?: AuthCache,
  now = Date.now(),
  /** Told of each unknown (null) or revoked key presented: security.auth_failure_spike counts them. */
  failed?: (key: ApiKey | null) => void,
): AuthContext {
  if (!header) throw unauthorized("Missing API key. Send it as 'Authorization: Bearer <API_KEY>'.");
  if (!header.startsWith("Bearer ")) {
    throw unauthorized("Malformed Authorization header. Expected 'Bearer <API_KEY>'.");
  }
  const token = header.slice(7).trim();
  // Only well-formed tokens are ever cached, so a hit needs no pattern test.
  const cached = cache?.get(token, now);
  if (cached) return cached;
  if (!KEY_PATTERN.test(token)) throw unauthorized("Malformed API key. gw keys start with gw_live_ or gw_test_.");
  return contextOf(token, repos.apiKeys.findByHash(sha256Hex(token)), repos, cache, now, failed);
}

/** The multi-instance mode's authenticate (docs/scale-out.md): a well-formed key the
 * mirror lacks is asked of `lookUp` (PostgreSQL), which may reject with a 503; every other answer,
 * and every key the mirror holds, is authenticate's, synchronously. */
export function authenticateOrLookUp(
  header: string | null,
  repos: { apiKeys: ApiKeysRepo; projects: ProjectsRepo },
  cache: AuthCache,
  now: number,
  failed: ((key: ApiKey | null) => void) | undefined,
  lookUp: (hash: string) => Promise<ApiKey | null>,
): AuthContext | Promise<AuthContext> {
  const token = header?.startsWith("Bearer ") ? header.slice(7).trim() : null;
  const cached = token === null ? undefined : cache.get(token, now);
  if (cached) return cached;
  // A missing or malformed key: authenticate's own refusal.
  if (token === null || !KEY_PATTERN.test(token)) return authenticate(header, repos, cache, now, failed);
  const hash = sha256Hex(token);
  const key = repos.apiKeys.findByHash(hash);
  if (key) return contextOf(token, key, repos, cache, now, failed);
  return lookUp(hash).then((found) => contextOf(token, found, repos, cache, now, failed));
}

function contextOf(
  token: string,
  key: ApiKey | null,
  repos: { projects: ProjectsRepo },
  cache: AuthCache | undefined,
  now: number,
  failed: ((key: ApiKey | null) => void) | undefined,
): AuthContext {
  if (!key) {
    failed?.(null);
    throw unauthorized("Unknown API key.");
  }
  if (key.revokedAt !== null) {
    failed?.(key);
    throw unauthorized("This API key has been revoked.");
  }
  const project = repos.projects.get(key.projectId);
  if (!project) throw unauthorized("The project of this API key no longer exists.");
  // The project's rules are compiled here, once per cached key, not per request.
  const auth: AuthContext = { project, key, test: key.mode === "test", rules: compileRules(project, key) };
  cache?.set(token, auth, now);
  return auth;
}

export function requireScope(auth: AuthContext, scope: KeyScope): void {
  if (!auth.key.scopes.includes(scope)) {
    throw new GwError("permission_denied", `This API key lacks the '${scope}' scope required by this endpoint.`);
  }
}
