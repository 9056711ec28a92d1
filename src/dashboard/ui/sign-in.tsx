// The sign-in page (docs/dashboard.md "Sign-in and roles"): the admin token or a project key with scope
// `requests`, or single sign-on by work e-mail. SSO leaves by a top-level navigation to the issuer.
import { useSignal } from "@preact/signals";
import type { JSX } from "preact";
import { send, session } from "./api.ts";
import { LogoIcon } from "./icons.tsx";
import { query, setQuery } from "./router.ts";
import type { Session } from "./types.ts";

const message = (e: unknown) => (e instanceof Error ? e.message : "The gateway did not answer.");

export function SignInPage({ startError }: { startError: string | null }) {
  const token = useSignal("");
  const email = useSignal("");
  const busy = useSignal(false);
  const error = useSignal<string | null>(startError);
  const ssoError = query.value.get("sso_error");

  const signIn = async (e: JSX.TargetedEvent<HTMLFormElement>) => {
    e.preventDefault();
    busy.value = true;
    error.value = null;
    try {
      const s = await send<Session>("POST", "/session", { token: token.value.trim() });
      token.value = "";
      if (ssoError) setQuery({ sso_error: null }, true);
      session.value = s;
    } catch (err) {
      error.value = message(err);
    } finally {
      busy.value = false;
    }
  };

  const sso = async (e: JSX.TargetedEvent<HTMLFormElement>) => {
    e.preventDefault();
    busy.value = true;
    error.value = null;
    try {
      const { redirect_url } = await send<{ redirect_url: string }>("POST", "/sso/start", { email: email.value.trim() });
      window.location.assign(redirect_url);
    } catch (err) {
      error.value = message(err);
      busy.value = false;
    }
  };

  return (
    <main class="signin">
      <div class="signin-card">
        <p class="brand"><LogoIcon /> gw</p>
        <h1>Sign in</h1>
        {ssoError && <p role="alert" class="alert">Single sign-on failed: {ssoError}</p>}
        {error.value && <p role="alert" class="alert">{error.value}</p>}
        <form onSubmit={signIn} class="stack">
          <label for="gw-token">Admin token or API key</label>
          <input id="gw-token" type="password" autocomplete="current-password" required value={token.value}
            onInput={(e) => (token.value = e.currentTarget.value)} />
          <button type="submit" class="btn btn-primary" disabled={busy.value}>Sign in</button>
        </form>
        <p class="muted">A project key needs scope <code>requests</code>.</p>
        <hr />
        <form onSubmit={sso} class="stack">
          <label for="gw-email">Work e-mail</label>
          <input id="gw-email" type="email" autocomplete="email" required value={email.value}
            onInput={(e) => (email.value = e.currentTarget.value)} />
          <button type="submit" class="btn" disabled={busy.value}>Sign in with SSO</button>
        </form>
      </div>
    </main>
  );
}
