// The `scope` macro: authenticates the Bearer key and checks the endpoint's scope before the
// handler runs (gateway-api.md 5). Resolves `auth` and the time it took, for the trace's auth span.
import { Elysia } from "elysia";
import { authenticate, requireScope } from "../auth/api-keys.ts";
import type { KeyScope } from "../config/constants.ts";
import type { Deps } from "../deps.ts";
import { requestIdPlugin } from "./context.ts";

export const authPlugin = (deps: Deps) =>
  new Elysia({ name: "gw-auth" }).use(requestIdPlugin).macro({
    scope: (scope: KeyScope) => ({
      resolve({ request }) {
        const t0 = performance.now();
        const auth = authenticate(request.headers.get("authorization"), deps.repos, deps.authCache);
        requireScope(auth, scope);
        return { auth, t0, authMs: performance.now() - t0 };
      },
    }),
  });
