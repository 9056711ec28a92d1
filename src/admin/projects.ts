// Project administration shared by the admin API, the CLI and the first-run bootstrap
// (contracts.md section 3): defaults, policy merge, and the project object on the wire.
import { GwError, invalidRequest } from "../errors/gw-error.ts";
import { newProjectId } from "../lib/ids.ts";
import { isObject, type JsonObject } from "../lib/json.ts";
import type { Project, ProjectsRepo } from "../store/repos/projects.ts";
import type { CreateProjectBody, UpdateProjectBody } from "../schema/admin.ts";

export function createProject(repo: ProjectsRepo, input: CreateProjectBody, now = Date.now()): Project {
  const mode = input.billing?.mode ?? "postpaid";
  return repo.create({
    id: newProjectId(),
    name: input.name,
    plan: input.plan ?? "pro",
    billingMode: mode,
    balance: 0,
    creditLimit: input.billing?.credit_limit ?? null,
    policy: (input.policy ?? {}) as JsonObject,
    createdAt: now,
  });
}

/** PATCH semantics: fields replace, `policy` merges key by key, a null policy value unsets it. */
export function updateProject(repo: ProjectsRepo, id: string, patch: UpdateProjectBody, nullKeys: string[]): Project {
  const project = repo.get(id);
  if (!project) throw new GwError("not_found", `No project '${id}'.`, { param: "id" });
  if (patch.name !== undefined) project.name = patch.name;
  if (patch.plan !== undefined) project.plan = patch.plan;
  if (patch.billing?.mode !== undefined) project.billingMode = patch.billing.mode;
  if (patch.billing?.credit_limit !== undefined) project.creditLimit = patch.billing.credit_limit;
  if (patch.policy) project.policy = { ...project.policy, ...(patch.policy as JsonObject) };
  for (const key of nullKeys) delete project.policy[key];
  return repo.save(project);
}

/** Splits `policy` keys set to null (to unset) from the rest (to validate and merge). */
export function splitNullPolicyKeys(body: unknown): { body: unknown; nullKeys: string[] } {
  if (!isObject(body) || body.policy === undefined) return { body, nullKeys: [] };
  if (!isObject(body.policy)) throw invalidRequest("'policy' must be an object.", "policy");
  const nullKeys = Object.keys(body.policy).filter((k) => body.policy !== null && (body.policy as JsonObject)[k] === null);
  const policy = Object.fromEntries(Object.entries(body.policy).filter(([, v]) => v !== null));
  return { body: { ...body, policy }, nullKeys };
}

export const projectView = (p: Project) => ({
  object: "project",
  id: p.id,
  name: p.name,
  plan: p.plan,
  billing: { mode: p.billingMode, balance: p.balance, credit_limit: p.creditLimit },
  policy: p.policy,
  created_at: new Date(p.createdAt).toISOString(),
});
