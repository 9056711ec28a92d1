// Dashboard sessions (docs/dashboard.md "Sign-in and roles"): sign-in by the admin token or a key
// with scope `requests`, a random cookie id stored only hashed, 12 h lifetime, and the key, project
// and token re-checked on every call so a revocation ends the session at once.
import { timingSafeEqual } from "node:crypto";
import { KEY_SCOPES, type KeyScope } from "../config/constants.ts";
import { GwError } from "../errors/gw-error.ts";
import type { Clock } from "../lib/clock.ts";
import { sha256Hex } from "../lib/hash.ts";
import { sortableId } from "../lib/ids.ts";
import type { ApiKey, ApiKeysRepo } from "../store/repos/api-keys.ts";
import type { DashboardSessionStore, StoredSession } from "../store/repos/dashboard-sessions.ts";
import type { ProjectsRepo } from "../store/repos/projects.ts";
import type { ProjectSsoRepo } from "../store/repos/project-sso.ts";
import { allowlistOf, type Allowlists } from "./ip-allowlist.ts";
import { andThen, type MaybeAsync } from "./maybe-async.ts";

export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** What an SSO sign-in may do: read the log and manage the cache (docs/dashboard.md "Single sign-on (OIDC)"). */
export const SSO_SCOPES: readonly KeyScope[] = ["requests", "cache"];
const KEY_PATTERN = /^gw_(live|test)_[0-9a-z]{40}$/;
/** The operator's sessions carry a fingerprint of the admin token: a changed token ends them. */
const OPERATOR_MARK = "admin:";

export interface SessionRepos {
  /** SQLite's repo (single-node) or PostgreSQL's store (the multi-instance mode). */
  dashboardSessions: DashboardSessionStore;
  apiKeys: ApiKeysRepo;
  projects: ProjectsRepo;
  projectSso: ProjectSsoRepo;
}

export type SignInOutcome =
  | { ok: true; session: StoredSession; token: string }
  | { ok: false; error: GwError; projectId: string | null; keyId: string | null };

/** The caller's refusal under a project's and key's IP allowlists (ip-allowlist.ts addressRefusal). */
export type AddressCheck = (lists: Allowlists) => GwError | null;

export function constantTimeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const randomToken = (): string => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
const adminMark = (adminToken: string): string => OPERATOR_MARK + sha256Hex(`gw-dashboard:${adminToken}`).slice(0, 24);

/** The multi-instance mode (sessions in PostgreSQL): a key this instance's mirror lacks (made
 * elsewhere a moment ago) is read from PostgreSQL before a sign-in is refused. */
export interface SharedSessions {
  lookUpKey(hash: string): Promise<ApiKey | null>;
}

export class DashboardSessions {
  constructor(
    private readonly repos: SessionRepos, private readonly clock: Clock, private readonly adminToken: string | null,
    private readonly shared: SharedSessions | null = null,
  ) {}

  /** Checks a token typed on the sign-in page; never throws for a wrong one (the caller counts it).
   * A key's and its project's IP allowlists hold for the dashboard as for the API. */
  signIn(token: string, address: AddressCheck): MaybeAsync<SignInOutcome> {
    const fail = (error: GwError, projectId: string | null = null, keyId: string | null = null): SignInOutcome => ({ ok: false, error, projectId, keyId });
    const given = token.trim();
    if (this.adminToken && constantTimeEqual(given, this.adminToken)) {
      return this.open({ role: "operator", projectId: null, keyId: adminMark(this.adminToken), scopes: [...KEY_SCOPES], email: null });
    }
    if (!KEY_PATTERN.test(given)) return fail(signInFailed("not the admin token or a gw API key"));
    const hash = sha256Hex(given);
    const held = this.repos.apiKeys.findByHash(hash);
    return andThen(held ?? this.shared?.lookUpKey(hash) ?? null, (key) => this.signInWith(key, address, fail));
  }

  private signInWith(key: ApiKey | null, address: AddressCheck, fail: (error: GwError, projectId?: string | null, keyId?: string | null) => SignInOutcome): MaybeAsync<SignInOutcome> {
    if (!key) return fail(signInFailed("unknown API key"));
    if (key.revokedAt !== null) return fail(signInFailed("this API key has been revoked"), key.projectId, key.id);
    const project = this.repos.projects.get(key.projectId);
    if (!project) return fail(signInFailed("the project of this key no longer exists"), key.projectId, key.id);
    const refusal = address({ project: allowlistOf(project.policy.ip_allowlist), key: allowlistOf(key.ipAllowlist) });
    if (refusal) return fail(refusal, key.projectId, key.id);
    if (!key.scopes.includes("requests")) {
      return fail(new GwError("permission_denied", "This API key lacks the 'requests' scope the dashboard needs."), key.projectId, key.id);
    }
    return this.open({ role: "project", projectId: key.projectId, keyId: key.id, scopes: key.scopes, email: null });
  }

  /** A project session for a verified SSO sign-in. `written` (multi-instance) settles once
   * PostgreSQL holds it; its failure is for the caller to await (it is never unhandled). */
  signInSso(projectId: string, email: string): { session: StoredSession; token: string; written: Promise<void> | null } {
    const now = this.clock.now();
    const opened = this.grant({ role: "project", projectId, keyId: null, scopes: [...SSO_SCOPES], email }, now);
    const stored = this.store(opened.session, now);
    const written = stored instanceof Promise ? stored : null;
    written?.catch(() => undefined);
    return { ...opened, written };
  }

  /** The live session of a cookie value, with the key's current scopes; null when there is none. */
  resolve(token: string | null): MaybeAsync<StoredSession | null> {
    if (!token) return null;
    const hash = sha256Hex(token);
    return andThen(this.repos.dashboardSessions.get(hash), (s) => {
      if (!s) return null;
      const valid = s.expiresAt > this.clock.now() ? this.recheck(s) : null;
      return valid ?? andThen(this.repos.dashboardSessions.delete(hash), () => null);
    });
  }

  /** The refusal of a live session's call from an address its project's or key's allowlist excludes. */
  addressRefusal(s: StoredSession, address: AddressCheck): GwError | null {
    if (s.role === "operator" || !s.projectId) return null;
    const project = this.repos.projects.get(s.projectId);
    const key = s.keyId ? this.repos.apiKeys.get(s.keyId) : null;
    return address({ project: allowlistOf(project?.policy.ip_allowlist), key: allowlistOf(key?.ipAllowlist) });
  }

  signOut(token: string | null): MaybeAsync<void> {
    if (token) return this.repos.dashboardSessions.delete(sha256Hex(token));
  }

  /** Whether what the session was granted on still holds: the admin token, the key, the SSO client. */
  private recheck(s: StoredSession): StoredSession | null {
    if (s.role === "operator") return this.adminToken && s.keyId === adminMark(this.adminToken) ? s : null;
    const project = s.projectId ? this.repos.projects.get(s.projectId) : null;
    if (!project) return null;
    if (s.keyId === null) {
      // SSO: the project must still be on plan business with SSO configured.
      return project.plan === "business" && this.repos.projectSso.get(project.id) ? s : null;
    }
    const key = this.repos.apiKeys.get(s.keyId);
    if (!key || key.revokedAt !== null || key.projectId !== project.id || !key.scopes.includes("requests")) return null;
    return { ...s, scopes: key.scopes };
  }

  private open(grant: Pick<StoredSession, "role" | "projectId" | "keyId" | "scopes" | "email">): MaybeAsync<{ ok: true; session: StoredSession; token: string }> {
    const now = this.clock.now();
    const opened = this.grant(grant, now);
    return andThen(this.store(opened.session, now), () => opened);
  }

  private grant(grant: Pick<StoredSession, "role" | "projectId" | "keyId" | "scopes" | "email">, now: number) {
    const token = randomToken();
    const session: StoredSession = {
      ...grant, tokenHash: sha256Hex(token), id: `dse_${sortableId(now)}`, csrfToken: randomToken(), createdAt: now, expiresAt: now + SESSION_TTL_MS,
    };
    return { ok: true as const, session, token };
  }

  /** Multi-instance: the leader drops expired rows (its "expired rows" job); single-node does it here. */
  private store(session: StoredSession, now: number): void | Promise<void> {
    if (this.shared) return this.repos.dashboardSessions.insert(session);
    this.repos.dashboardSessions.deleteExpired(now);
    this.repos.dashboardSessions.insert(session);
  }
}

const signInFailed = (why: string) => new GwError("invalid_api_key", `Sign-in failed: ${why}.`);
