// Project administration shared by the admin API, the CLI and the first-run bootstrap
// (docs/api.md "Admin API"): defaults, policy merge, and the project object on the wire.
import { GwError, invalidRequest } from "../errors/gw-error.ts";
import { newProjectId } from "../lib/ids.ts";
import { isObject, type JsonObject } from "../lib/json.ts";
import type { Project, ProjectsRepo } from "../store/repos/projects.ts";
import { policyFrom, UpdateProjectBody, type CreateProjectBody } from "../schema/admin.ts";
import { compileValidator } from "../schema/validate.ts";
import { assertCidrs } from "./cidrs.ts";
import { planHas } from "../billing/plans.ts";
import { toUsd } from "../billing/money.ts";

/** Zero retention is a Business feature: refused when written for another
 * plan, so a project never believes it has it while gw keeps its data (docs/billing.md "Plans"). */
function assertPlanFeatures(p: Project, param: string): void {
  if (p.policy.retention === "zero" && !planHas(p.plan, "zero_retention")) {
    throw invalidRequest(`Zero retention is a Business plan feature; this project is on '${p.plan}'.`, param);
  }
}

export function createProject(repo: ProjectsRepo, input: CreateProjectBody, now = Date.now()): Project {
  const mode = input.billing?.mode ?? "postpaid";
  const project: Project = {
    id: newProjectId(),
    name: input.name,
    plan: input.plan ?? "pro",
    billingMode: mode,
    balance: 0,
    creditLimit: input.billing?.credit_limit ?? null,
    policy: input.policy ?? {},
    createdAt: now,
  };
  assertPlanFeatures(project, "policy.retention");
  return repo.create(project);
}

/** PATCH semantics: fields replace, `policy` merges key by key, a null policy value unsets it. */
export function updateProject(repo: ProjectsRepo, id: string, patch: UpdateProjectBody, nullKeys: string[]): Project {
  const project = repo.get(id);
  if (!project) throw new GwError("not_found", `No project '${id}'.`, { param: "id" });
  if (patch.name !== undefined) project.name = patch.name;
  if (patch.plan !== undefined) project.plan = patch.plan;
  if (patch.billing?.mode !== undefined) project.billingMode = patch.billing.mode;
  if (patch.billing?.credit_limit !== undefined) project.creditLimit = patch.billing.credit_limit;
  const policy: JsonObject = { ...project.policy, ...patch.policy };
  for (const key of nullKeys) delete policy[key];
  project.policy = policyFrom(policy);
  assertPlanFeatures(project, patch.policy?.retention !== undefined ? "policy.retention" : "plan");
  return repo.save(project);
}

const validateUpdate = compileValidator(UpdateProjectBody);

/** A PATCH body as the admin API and `gw projects update` take it: policy keys set to null are
 * split off (to unset), the rest validated and the allowlist's ranges checked. */
export function parseProjectPatch(raw: unknown): { input: UpdateProjectBody; nullKeys: string[] } {
  const { body, nullKeys } = splitNullPolicyKeys(raw);
  const input = validateUpdate(body);
  assertCidrs(input.policy?.ip_allowlist, "policy.ip_allowlist");
  return { input, nullKeys };
}

/** Splits `policy` keys set to null (to unset) from the rest (to validate and merge). */
export function splitNullPolicyKeys(body: unknown): { body: unknown; nullKeys: string[] } {
  if (!isObject(body) || body.policy === undefined) return { body, nullKeys: [] };
  const raw = body.policy;
  if (!isObject(raw)) throw invalidRequest("'policy' must be an object.", "policy");
  const nullKeys = Object.keys(raw).filter((k) => raw[k] === null);
  const policy = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== null));
  return { body: { ...body, policy }, nullKeys };
}

/** `balance` (nano-USD) comes from the ledger (billing); the stored column predates it. */
export const projectView = (p: Project, balance?: number) => ({
  object: "project",
  id: p.id,
  name: p.name,
  plan: p.plan,
  billing: { mode: p.billingMode, balance: balance === undefined ? p.balance : toUsd(balance), credit_limit: p.creditLimit },
  policy: p.policy,
  created_at: new Date(p.createdAt).toISOString(),
});
