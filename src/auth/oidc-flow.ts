// The SSO sign-in (docs/dashboard.md "Single sign-on (OIDC)"): the e-mail's domain picks the
// project, the browser goes to its issuer with state, nonce and a PKCE S256 challenge; the verifier
// stays here, keyed by state, for 10 minutes and one use. The callback ends in a verified e-mail.
import { GwError, invalidRequest } from "../errors/gw-error.ts";
import type { Clock } from "../lib/clock.ts";
import type { SecretBox } from "../lib/secret-box.ts";
import type { ProjectSsoStore } from "../store/repos/project-sso.ts";
import type { ProjectsRepo } from "../store/repos/projects.ts";
import { type OidcClient, SsoFailure } from "./oidc-client.ts";

export const SSO_STATE_TTL_MS = 10 * 60 * 1000;
/** Sign-ins under way at once; the oldest is dropped first, so the map stays bounded. */
const MAX_PENDING = 10_000;
const EMAIL = /^[^\s@]{1,64}@([^\s@]{1,253})$/;

export interface Pending {
  projectId: string;
  verifier: string;
  nonce: string;
  redirectUri: string;
  createdAt: number;
}

/** Where a started sign-in waits for its callback, by state, used once: this process's memory, or
 * Redis in the multi-instance mode (the callback may reach another instance; src/auth/oidc-pending.ts). */
export interface PendingSignIns {
  remember(state: string, p: Pending): void | Promise<void>;
  take(state: string): Pending | null | Promise<Pending | null>;
}

export class MemoryPendingSignIns implements PendingSignIns {
  private readonly pending = new Map<string, Pending>();

  remember(state: string, p: Pending): void {
    if (this.pending.size >= MAX_PENDING) this.pending.delete(this.pending.keys().next().value as string);
    this.pending.set(state, p);
  }

  take(state: string): Pending | null {
    const p = this.pending.get(state);
    if (!p) return null;
    this.pending.delete(state);
    return p;
  }
}

export interface SsoFlowDeps {
  projects: ProjectsRepo;
  /** The repo on one node; PostgreSQL's store with the instances (a client another instance saved). */
  projectSso: Pick<ProjectSsoStore, "get" | "findByDomain">;
  pending?: PendingSignIns;
  secrets: SecretBox;
  clock: Clock;
  oidc: OidcClient;
}

export type SsoOutcome =
  | { ok: true; projectId: string; email: string }
  | { ok: false; reason: string; detail: string; projectId: string | null; email: string | null };

const random = (): string => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
const s256 = (verifier: string): string => new Bun.CryptoHasher("sha256").update(verifier).digest("base64url");
export const emailDomain = (email: string): string => (email.slice(email.lastIndexOf("@") + 1)).toLowerCase();

export class SsoFlow {
  private readonly pending: PendingSignIns;
  constructor(private readonly deps: SsoFlowDeps) {
    this.pending = deps.pending ?? new MemoryPendingSignIns();
  }

  /** The issuer's authorization URL for this e-mail; 404 when no project's SSO takes its domain. */
  async start(email: unknown, redirectUri: string): Promise<{ redirectUrl: string; projectId: string }> {
    const match = typeof email === "string" ? EMAIL.exec(email.trim()) : null;
    if (!match) throw invalidRequest("Send {\"email\": \"you@your-company.com\"}.", "email");
    const sso = await this.deps.projectSso.findByDomain(emailDomain(email as string));
    if (!sso) throw new GwError("not_found", "No SSO for this e-mail domain.", { param: "email" });
    if (this.deps.projects.get(sso.projectId)?.plan !== "business") throw new GwError("permission_denied", "SSO needs plan business.");
    let authorizationEndpoint: string;
    try {
      authorizationEndpoint = (await this.deps.oidc.discover(sso.issuer)).authorization_endpoint;
    } catch (err) {
      const detail = err instanceof SsoFailure ? err.message : "discovery failed";
      throw new GwError("upstream_error", `The identity provider could not be reached (${detail}).`);
    }
    const state = random();
    const verifier = random();
    const nonce = random();
    try {
      await this.pending.remember(state, { projectId: sso.projectId, verifier, nonce, redirectUri, createdAt: this.deps.clock.now() });
    } catch {
      throw new GwError("service_unavailable", "The sign-in could not be started; retry in a moment.");
    }
    const url = new URL(authorizationEndpoint);
    for (const [k, v] of Object.entries({
      response_type: "code", client_id: sso.clientId, redirect_uri: redirectUri, scope: "openid email",
      state, nonce, code_challenge: s256(verifier), code_challenge_method: "S256",
    })) url.searchParams.set(k, v);
    return { redirectUrl: url.toString(), projectId: sso.projectId };
  }

  /** The callback: the state's pending sign-in (used up), the code exchange and the id_token check. */
  async finish(query: { code: string | null; state: string | null; error: string | null }): Promise<SsoOutcome> {
    let found: Pending | null;
    try {
      found = query.state ? await this.take(query.state) : null;
    } catch {
      return { ok: false, reason: "unavailable", detail: "the pending sign-in could not be read", projectId: null, email: null };
    }
    const pending = found;
    if (!pending) return { ok: false, reason: "state", detail: "unknown, used or expired state", projectId: null, email: null };
    const fail = (reason: string, detail: string, email: string | null = null): SsoOutcome => ({ ok: false, reason, detail, projectId: pending.projectId, email });
    if (query.error) return fail("denied", `the provider answered ${query.error.slice(0, 100)}`);
    if (!query.code) return fail("code", "no code");
    const sso = await this.deps.projectSso.get(pending.projectId);
    if (!sso) return fail("not_configured", "SSO was removed");
    if (this.deps.projects.get(sso.projectId)?.plan !== "business") return fail("plan", "SSO needs plan business");
    try {
      const doc = await this.deps.oidc.discover(sso.issuer);
      const idToken = await this.deps.oidc.exchange(doc, {
        code: query.code, redirectUri: pending.redirectUri, clientId: sso.clientId, clientSecret: this.deps.secrets.open(sso.sealedSecret), verifier: pending.verifier,
      });
      const claims = await this.deps.oidc.verify(doc, idToken, { clientId: sso.clientId, nonce: pending.nonce });
      const email = typeof claims.email === "string" ? claims.email.toLowerCase() : null;
      if (!email || !EMAIL.test(email)) return fail("email", "no e-mail claim");
      if (claims.email_verified !== true && claims.email_verified !== "true") return fail("email_unverified", "e-mail not verified", email);
      if (!sso.allowedDomains.includes(emailDomain(email))) return fail("domain", "e-mail domain not allowed", email);
      return { ok: true, projectId: sso.projectId, email };
    } catch (err) {
      if (err instanceof SsoFailure) return fail(err.reason, err.message);
      return fail("internal", "the sign-in could not be completed");
    }
  }

  private async take(state: string): Promise<Pending | null> {
    const p = await this.pending.take(state);
    return p && this.deps.clock.now() - p.createdAt < SSO_STATE_TTL_MS ? p : null;
  }
}
