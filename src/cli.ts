// The gw command line (docs/running.md "Command line"): serve, and offline project/key admin that
// works directly on the data directory's database, printing JSON.
import { addCredits, listInvoices, offlineCredits } from "./admin/billing.ts";
import { createProject, projectView } from "./admin/projects.ts";
import { isKeyScope, issueKey } from "./auth/api-keys.ts";
import type { KeyScope } from "./config/constants.ts";
import { loadConfig, parseArgs, type Flags } from "./config/env.ts";
import { openRepos } from "./deps.ts";
import { doctor } from "./doctor.ts";
import { serveUntilSignal } from "./server.ts";
import { openDatabase } from "./store/db.ts";
import { keyEvent } from "./monitoring/events/event-sources.ts";
import { WebhookEmitter } from "./monitoring/webhooks/emitter.ts";
import { systemClock } from "./lib/clock.ts";

const USAGE = `Usage:
  gw serve [--port N] [--host H] [--data DIR]
  gw projects create --name NAME [--data DIR]
  gw keys create --project ID [--scopes chat,models,...] [--test] [--name NAME] [--data DIR]
  gw keys revoke KEY_ID [--data DIR]
  gw credits add --project ID --amount USD [--data DIR]
  gw invoices --project ID [--month YYYY-MM] [--data DIR]
  gw doctor                  checks SQLite, the vector-index addon, the tokenizer and the catalog`;

class UsageError extends Error {}

const need = (flags: Flags, name: string): string => {
  const v = flags[name];
  if (typeof v !== "string" || v === "") throw new UsageError(`--${name} is required.`);
  return v;
};

function parseScopes(text: string | boolean | undefined): KeyScope[] | null {
  if (text === undefined) return null;
  if (typeof text !== "string") throw new UsageError("--scopes needs a comma-separated list, e.g. chat,models.");
  const scopes = text.split(",").map((s) => s.trim()).filter(Boolean);
  if (scopes.length === 0) throw new UsageError("--scopes needs at least one scope.");
  const bad = scopes.filter((s) => !isKeyScope(s));
  if (bad.length > 0) throw new UsageError(`Unknown scope(s): ${bad.join(", ")}.`);
  return scopes as KeyScope[];
}

function adminCommand(words: string[], flags: Flags): unknown {
  const config = loadConfig(flags);
  const db = openDatabase(config.dataDir);
  const repos = openRepos(db);
  // Key events are queued in the database; a running gw delivers them within a second or two.
  const events = new WebhookEmitter(repos.webhookEvents, systemClock, (err) => console.error(`webhook event not stored: ${String(err)}`));
  try {
    const [noun, verb, arg] = words;
    if (noun === "projects" && verb === "create") {
      return projectView(createProject(repos.projects, { name: need(flags, "name") }));
    }
    if (noun === "keys" && verb === "create") {
      const project = repos.projects.get(need(flags, "project"));
      if (!project) throw new UsageError(`No project '${flags.project}'.`);
      const name = typeof flags.name === "string" ? flags.name : null;
      const { key, secret } = issueKey(repos.apiKeys, {
        projectId: project.id, name, scopes: parseScopes(flags.scopes), mode: flags.test ? "test" : "live",
      });
      events.emit(keyEvent("security.key_created", key));
      return { object: "key", id: key.id, key: secret, scopes: key.scopes, mode: key.mode, created_at: new Date(key.createdAt).toISOString() };
    }
    if (noun === "credits" && verb === "add") {
      const project = repos.projects.get(need(flags, "project"));
      if (!project) throw new UsageError(`No project '${flags.project}'.`);
      const amount = Number(need(flags, "amount"));
      if (!Number.isFinite(amount) || amount <= 0) throw new UsageError("--amount needs a number of USD above 0, e.g. 25 or 12.50.");
      // Written to the ledger here; a running server applies it within seconds (docs/billing.md).
      return addCredits(offlineCredits(repos.ledger), project.id, amount, "cli");
    }
    if (noun === "invoices") {
      const project = repos.projects.get(need(flags, "project"));
      if (!project) throw new UsageError(`No project '${flags.project}'.`);
      return listInvoices(repos.ledger, project, typeof flags.month === "string" ? flags.month : undefined);
    }
    if (noun === "keys" && verb === "revoke") {
      if (!arg) throw new UsageError("gw keys revoke needs a KEY_ID.");
      const key = repos.apiKeys.revoke(arg, Date.now());
      if (!key) throw new UsageError(`No key '${arg}'.`);
      events.emit(keyEvent("security.key_revoked", key));
      return { object: "key", id: key.id, revoked: true };
    }
    throw new UsageError(`Unknown command: ${words.join(" ")}`);
  } finally {
    db.close();
  }
}

export function runCli(argv: readonly string[]): number {
  const { words, flags } = parseArgs(argv);
  try {
    if (words.length === 0 || words[0] === "serve") {
      // -1 keeps running; a port or data directory already in use exits 1 with a message.
      return serveUntilSignal(loadConfig(flags));
    }
    if (words[0] === "doctor") {
      const report = doctor();
      process.stdout.write(JSON.stringify(report, null, 2) + "\n");
      return report.ok ? 0 : 1;
    }
    if (words[0] === "help" || flags.help) {
      process.stdout.write(USAGE + "\n");
      return 0;
    }
    process.stdout.write(JSON.stringify(adminCommand(words, flags), null, 2) + "\n");
    return 0;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`gw: ${message}\n${err instanceof UsageError ? USAGE + "\n" : ""}`);
    return err instanceof UsageError ? 2 : 1;
  }
}
