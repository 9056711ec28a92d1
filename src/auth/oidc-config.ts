// Per-project SSO clients (docs/dashboard.md "Single sign-on (OIDC)"): plan business only, the
// client secret sealed like provider keys and never shown again, each e-mail domain on one project.
import { GwError, invalidRequest } from "../errors/gw-error.ts";
import type { SecretBox } from "../lib/secret-box.ts";
import type { PostgresSsoStore } from "../store/postgres/sso.ts";
import type { ProjectSsoRepo, StoredSso } from "../store/repos/project-sso.ts";
import type { Project } from "../store/repos/projects.ts";

export interface SsoBody {
  issuer: string;
  client_id: string;
  client_secret: string;
  allowed_domains: string[];
}

const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

export const ssoView = (s: StoredSso) => ({
  object: "project.sso",
  project_id: s.projectId,
  issuer: s.issuer,
  client_id: s.clientId,
  client_secret_set: true,
  allowed_domains: s.allowedDomains,
  updated_at: new Date(s.updatedAt).toISOString(),
});

/** The issuer must be https (plain http only on loopback, where a local provider runs). */
function checkIssuer(value: unknown): string {
  if (typeof value !== "string" || value.length > 500) throw invalidRequest("issuer must be the provider's issuer URL.", "issuer");
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidRequest("issuer must be the provider's issuer URL.", "issuer");
  }
  const local = url.protocol === "http:" && LOOPBACK.has(url.hostname);
  if ((url.protocol !== "https:" && !local) || url.search || url.hash || url.username) {
    throw invalidRequest("issuer must be an https URL without query or fragment.", "issuer");
  }
  return value;
}

function checkString(value: unknown, param: string, max: number): string {
  if (typeof value !== "string" || value.trim() === "" || value.length > max) throw invalidRequest(`${param} must be a non-empty string of at most ${max} characters.`, param);
  return value;
}

export function parseSsoBody(body: Record<string, unknown>): SsoBody {
  for (const k of Object.keys(body)) {
    if (!["issuer", "client_id", "client_secret", "allowed_domains"].includes(k)) throw invalidRequest(`Unknown field '${k}'.`, k);
  }
  const domains = body.allowed_domains;
  if (!Array.isArray(domains) || domains.length === 0 || domains.length > 50) throw invalidRequest("allowed_domains must list 1 to 50 e-mail domains.", "allowed_domains");
  const allowed = domains.map((d, i) => {
    const domain = typeof d === "string" ? d.trim().toLowerCase() : "";
    if (!DOMAIN.test(domain)) throw invalidRequest(`'${String(d)}' is not an e-mail domain.`, `allowed_domains[${i}]`);
    return domain;
  });
  return {
    issuer: checkIssuer(body.issuer),
    client_id: checkString(body.client_id, "client_id", 500),
    client_secret: checkString(body.client_secret, "client_secret", 2000),
    allowed_domains: [...new Set(allowed)],
  };
}

const claimed = (domain: string) => new GwError("conflict", `The domain '${domain}' already signs in to another project.`, { param: "allowed_domains" });

export function putSso(repo: ProjectSsoRepo, box: SecretBox, project: Project, body: SsoBody, now: number) {
  if (project.plan !== "business") throw new GwError("permission_denied", "SSO needs plan business.");
  for (const domain of body.allowed_domains) {
    const owner = repo.findByDomain(domain);
    if (owner && owner.projectId !== project.id) throw claimed(domain);
  }
  const previous = repo.get(project.id);
  const stored: StoredSso = {
    projectId: project.id, issuer: body.issuer, clientId: body.client_id, sealedSecret: box.seal(body.client_secret),
    allowedDomains: body.allowed_domains, createdAt: previous?.createdAt ?? now, updatedAt: now,
  };
  repo.put(stored);
  return ssoView(stored);
}

/** The multi-instance mode's SSO clients: PostgreSQL's, this instance's SQLite copy written after
 * (the others' copies follow within seconds; docs/scale-out.md). */
export interface SharedSso {
  store: Pick<PostgresSsoStore, "putUnlessClaimed" | "get" | "delete">;
  local: ProjectSsoRepo;
}

/** putSso on PostgreSQL: the domain check and the write in one transaction, one writer at a time. */
export async function putSharedSso(sso: SharedSso, box: SecretBox, project: Project, body: SsoBody, now: number) {
  if (project.plan !== "business") throw new GwError("permission_denied", "SSO needs plan business.");
  const result = await sso.store.putUnlessClaimed({
    projectId: project.id, issuer: body.issuer, clientId: body.client_id, sealedSecret: box.seal(body.client_secret),
    allowedDomains: body.allowed_domains, createdAt: now, updatedAt: now,
  });
  if (!result.ok) throw claimed(result.domain);
  sso.local.put(result.stored);
  return ssoView(result.stored);
}

export async function getSharedSso(sso: SharedSso, projectId: string) {
  const stored = await sso.store.get(projectId);
  if (!stored) throw new GwError("not_found", `Project '${projectId}' has no SSO configured.`);
  return ssoView(stored);
}

export async function deleteSharedSso(sso: SharedSso, projectId: string) {
  const deleted = await sso.store.delete(projectId);
  sso.local.delete(projectId);
  if (!deleted) throw new GwError("not_found", `Project '${projectId}' has no SSO configured.`);
  return { object: "project.sso", project_id: projectId, deleted: true };
}

export function getSso(repo: ProjectSsoRepo, projectId: string) {
  const stored = repo.get(projectId);
  if (!stored) throw new GwError("not_found", `Project '${projectId}' has no SSO configured.`);
  return ssoView(stored);
}

export function deleteSso(repo: ProjectSsoRepo, projectId: string) {
  if (!repo.delete(projectId)) throw new GwError("not_found", `Project '${projectId}' has no SSO configured.`);
  return { object: "project.sso", project_id: projectId, deleted: true };
}
