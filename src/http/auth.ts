// The `scope` macro: authenticates the Bearer key, checks the endpoint's scope and the project's
// and key's IP allowlists before the handler runs (docs/api.md "Authentication"; docs/security.md
// "Boundaries"). Resolves `auth` and the time it took, for the trace's auth span.
import { Elysia } from "elysia";
import { authenticate, authenticateOrLookUp, requireScope, type AuthContext } from "../auth/api-keys.ts";
import { addressRefusal } from "../auth/ip-allowlist.ts";
import { API_BASE_PATH, type KeyScope } from "../config/constants.ts";
import type { Deps } from "../pipeline/deps.ts";
import type { GwError } from "../errors/gw-error.ts";
import { requestIdPlugin } from "./context.ts";

/** The pipeline endpoints refuse a forbidden address in their guard stage instead, so the refusal
 * is a logged request with a guard span; they receive it as `addressRefusal`, and idempotent.ts
 * reads it before any lookup. */
const PIPELINE_PATHS: ReadonlySet<string> = new Set(["/chat/completions", "/responses", "/embeddings"].map((p) => `${API_BASE_PATH}${p}`));

/** The key as `Authorization: Bearer`, or else Anthropic's `x-api-key` (its SDK and Claude Code send
 * that): read only when there is no Authorization header (docs/anthropic.md "Authentication"). */
export function credentialHeader(headers: Headers): string | null {
  const authorization = headers.get("authorization");
  if (authorization !== null) return authorization;
  const apiKey = headers.get("x-api-key");
  return apiKey === null ? null : `Bearer ${apiKey}`;
}

interface PeerServer {
  requestIP(request: Request): { address: string } | null;
}

/** The key's context: synchronous on single-node; in the multi-instance mode a key the mirror lacks
 * is looked up in PostgreSQL (a promise then; docs/scale-out.md). */
export function authenticateRequest(deps: Deps, request: Request): AuthContext | Promise<AuthContext> {
  const header = credentialHeader(request.headers);
  const failed = deps.eventSources.security.authFailed;
  if (!deps.shared) return authenticate(header, deps.repos, deps.authCache, deps.clock.now(), failed);
  const { mirror } = deps.shared;
  return authenticateOrLookUp(header, deps.repos, deps.authCache, deps.clock.now(), failed, (hash) => mirror.lookUpKey(hash));
}

export const authPlugin = (deps: Deps) =>
  new Elysia({ name: "gw-auth" }).use(requestIdPlugin).macro({
    scope: (scope: KeyScope) => ({
      resolve({ request, path, server, requestId }): Admitted | Promise<Admitted> {
        const t0 = performance.now();
        const found = authenticateRequest(deps, request);
        if (found instanceof Promise) return found.then((auth) => admit(deps, auth, scope, t0, request, path, server, requestId));
        return admit(deps, found, scope, t0, request, path, server, requestId);
      },
    }),
  });

// A type, not an interface: Elysia wants a resolve's value indexable.
type Admitted = {
  auth: AuthContext;
  t0: number;
  authMs: number;
  addressRefusal: GwError | null;
};

/** Scope and allowlists of an authenticated key; what the routes receive. */
function admit(deps: Deps, auth: AuthContext, scope: KeyScope, t0: number, request: Request, path: string, server: unknown, requestId: string): Admitted {
  requireScope(auth, scope);
  const lists = auth.rules.ipAllowlists;
  // Most keys have no allowlist: then no peer closure and no X-Forwarded-For lookup.
  const refusal = lists.project || lists.key
    ? addressRefusal(lists, () => (server as PeerServer | null)?.requestIP(request)?.address ?? null, request.headers.get("x-forwarded-for"), deps.config.trustedProxies)
    : null;
  if (refusal) deps.eventSources.security.ipBlocked(auth.project.id, requestId, auth.key.id);
  if (refusal && !PIPELINE_PATHS.has(path)) throw refusal;
  return { auth, t0, authMs: performance.now() - t0, addressRefusal: refusal };
}
