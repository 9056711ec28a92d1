// The offline admin commands (docs/running.md "Command line"): the admin API's own code run on the
// data directory's database, printing JSON. Every input is checked before the database is opened.
import { readFileSync } from "node:fs";
import { addCredits, listInvoices, offlineCredits } from "../admin/billing.ts";
import { issuedKeyView, keyView } from "../admin/keys.ts";
import { createProject, parseProjectPatch, projectView, updateProject } from "../admin/projects.ts";
import { deleteProviderKey, putProviderKey } from "../admin/provider-keys.ts";
import { isKeyScope, issueKey } from "../auth/api-keys.ts";
import type { KeyScope } from "../config/constants.ts";
import { loadConfig, UsageError, type Flags } from "../config/env.ts";
import { GwError } from "../errors/gw-error.ts";
import type { SecretBox } from "../lib/secret-box.ts";
import { keyEvent } from "../monitoring/events/event-sources.ts";
import type { EmitInput } from "../monitoring/webhooks/emitter.ts";
import type { Repos } from "../pipeline/deps.ts";
import { ProviderKeyBody } from "../schema/admin.ts";
import { compileValidator } from "../schema/validate.ts";
import type { Project } from "../store/repos/projects.ts";

export interface AdminContext {
  /** The data directory's database, opened (and created when new) on first use. */
  repos(): Repos;
  /** Seals provider keys as the server does (GW_SECRET_KEY, or secret.key in the data directory). */
  secrets(): SecretBox;
  /** Queues a key event; a running gw delivers it. */
  emit(event: EmitInput): void;
}

const validateProviderKey = compileValidator(ProviderKeyBody);
const str = (flags: Flags, name: string): string | undefined => (typeof flags[name] === "string" ? flags[name] : undefined);

function projectOf(ctx: AdminContext, id: string): Project {
  const project = ctx.repos().projects.get(id);
  if (!project) throw new GwError("not_found", `No project '${id}'. gw projects list shows them.`, { param: "project" });
  return project;
}

function parseScopes(text: string | undefined): KeyScope[] | null {
  if (text === undefined) return null;
  const scopes = text.split(",").map((s) => s.trim()).filter(Boolean);
  if (scopes.length === 0) throw new UsageError("--scopes needs at least one scope, e.g. chat,models.");
  const bad = scopes.filter((s) => !isKeyScope(s));
  if (bad.length > 0) throw new UsageError(`Unknown scope(s): ${bad.join(", ")}.`);
  return scopes.filter(isKeyScope);
}

function parseJsonFlag(name: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--${name} is not valid JSON (${err instanceof Error ? err.message : String(err)}); e.g. --${name} '{"cache":false}'.`);
  }
}

function projectPatch(flags: Flags): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  if (str(flags, "name") !== undefined) patch.name = str(flags, "name");
  if (str(flags, "plan") !== undefined) patch.plan = str(flags, "plan");
  if (str(flags, "policy") !== undefined) patch.policy = parseJsonFlag("policy", str(flags, "policy")!);
  if (Object.keys(patch).length === 0) throw new UsageError("Nothing to change: give --name, --plan or --policy.");
  return patch;
}

function providerKeyBody(flags: Flags) {
  const given = str(flags, "key");
  if ((given !== undefined) === (flags["key-stdin"] === true)) throw new UsageError("Give the provider's key by exactly one of --key VALUE and --key-stdin.");
  const apiKey = (given ?? readFileSync(0, "utf8")).trim();
  if (apiKey === "") throw new UsageError("The provider's key is empty.");
  const body: Record<string, unknown> = { api_key: apiKey };
  if (str(flags, "base-url") !== undefined) body.base_url = str(flags, "base-url");
  return validateProviderKey(body);
}

/** In the multi-instance mode the data directory holds one instance's mirror of PostgreSQL's
 * projects and keys, and the balances are PostgreSQL's: a command here would read or change only
 * that copy, so each refuses, pointing at the admin API (docs/scale-out.md). */
export function refuseWhenShared(name: string, flags: Flags): void {
  if (loadConfig(flags).stateMode !== "multi-instance") return;
  throw new Error(`'gw ${name}' reads and writes this machine's data directory only; in the multi-instance mode (GW_DATABASE_URL and GW_REDIS_URL set) ` +
    "projects, keys, provider keys and credits are PostgreSQL's and every instance serves them. " +
    "Use the admin API of any instance instead (e.g. POST /v1/admin/projects with GW_ADMIN_TOKEN; docs/api.md \"Admin API\").");
}

/** Runs one admin command; its answer is printed as JSON. */
export function runAdminCommand(name: string, args: readonly string[], flags: Flags, ctx: AdminContext): unknown {
  refuseWhenShared(name, flags);
  const project = str(flags, "project") ?? "";
  switch (name) {
    case "projects create":
      return projectView(createProject(ctx.repos().projects, { name: str(flags, "name")! }), 0);
    case "projects list": {
      const repos = ctx.repos();
      return { object: "list", data: repos.projects.list().map((p) => projectView(p, repos.ledger.balanceOf(p.id))), has_more: false };
    }
    case "projects get":
      return projectView(projectOf(ctx, args[0]!), ctx.repos().ledger.balanceOf(args[0]!));
    case "projects update": {
      const { input, nullKeys } = parseProjectPatch(projectPatch(flags));
      const repos = ctx.repos();
      projectOf(ctx, args[0]!);
      return projectView(updateProject(repos.projects, args[0]!, input, nullKeys), repos.ledger.balanceOf(args[0]!));
    }
    case "keys create": {
      const scopes = parseScopes(str(flags, "scopes"));
      const { key, secret } = issueKey(ctx.repos().apiKeys, {
        projectId: projectOf(ctx, project).id, name: str(flags, "name") ?? null, scopes, mode: flags.test ? "test" : "live",
      });
      ctx.emit(keyEvent("security.key_created", key));
      return issuedKeyView(key, secret);
    }
    case "keys list":
      return { object: "list", data: ctx.repos().apiKeys.listByProject(projectOf(ctx, project).id).map(keyView), has_more: false };
    case "keys revoke": {
      const key = ctx.repos().apiKeys.revoke(args[0]!, Date.now());
      if (!key) throw new GwError("not_found", `No key '${args[0]}'.`, { param: "key_id" });
      ctx.emit(keyEvent("security.key_revoked", key));
      return { object: "key", id: key.id, revoked: true };
    }
    case "provider-keys set": {
      const body = providerKeyBody(flags);
      projectOf(ctx, project);
      return putProviderKey(ctx.repos().providerKeys, ctx.secrets(), project, str(flags, "provider")!, body);
    }
    case "provider-keys delete":
      projectOf(ctx, project);
      return deleteProviderKey(ctx.repos().providerKeys, project, str(flags, "provider")!);
    case "credits add": {
      const amount = Number(str(flags, "amount"));
      if (!Number.isFinite(amount) || amount <= 0) throw new UsageError("--amount needs a number of USD above 0, e.g. 25 or 12.50.");
      // Written to the ledger here; a running server applies it within seconds (docs/billing.md).
      return addCredits(offlineCredits(ctx.repos().ledger), projectOf(ctx, project).id, amount, "cli");
    }
    case "invoices":
      return listInvoices(ctx.repos().ledger, projectOf(ctx, project), str(flags, "month"));
    default:
      throw new UsageError(`Unknown command: ${name}`);
  }
}
