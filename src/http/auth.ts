// The `scope` macro: authenticates the Bearer key, checks the endpoint's scope and the project's
// and key's IP allowlists before the handler runs (docs/api.md "Authentication"; docs/security.md
// "Boundaries"). Resolves `auth` and the time it took, for the trace's auth span.
import { Elysia } from "elysia";
import { authenticate, requireScope } from "../auth/api-keys.ts";
import { addressRefusal } from "../auth/ip-allowlist.ts";
import { API_BASE_PATH, type KeyScope } from "../config/constants.ts";
import type { Deps } from "../pipeline/deps.ts";
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

export const authPlugin = (deps: Deps) =>
  new Elysia({ name: "gw-auth" }).use(requestIdPlugin).macro({
    scope: (scope: KeyScope) => ({
      resolve({ request, path, server, requestId }) {
        const t0 = performance.now();
        const auth = authenticate(credentialHeader(request.headers), deps.repos, deps.authCache, deps.clock.now(), deps.eventSources.security.authFailed);
        requireScope(auth, scope);
        const lists = auth.rules.ipAllowlists;
        // Most keys have no allowlist: then no peer closure and no X-Forwarded-For lookup.
        const refusal = lists.project || lists.key
          ? addressRefusal(lists, () => (server as PeerServer | null)?.requestIP(request)?.address ?? null, request.headers.get("x-forwarded-for"), deps.config.trustedProxies)
          : null;
        if (refusal) deps.eventSources.security.ipBlocked(auth.project.id, requestId, auth.key.id);
        if (refusal && !PIPELINE_PATHS.has(path)) throw refusal;
        return { auth, t0, authMs: performance.now() - t0, addressRefusal: refusal };
      },
    }),
  });
