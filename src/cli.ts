// The gw command line (docs/running.md "Command line"): serve, and offline project/key admin that
// works directly on the data directory's database, printing JSON.
import type { Database } from "bun:sqlite";
import { backupDataDir } from "./cli/backup.ts";
import { runAdminCommand, type AdminContext } from "./cli/admin.ts";
import { usage } from "./cli/commands.ts";
import { runMigrateToPostgres } from "./cli/migrate-to-postgres.ts";
import { CliUsageError, parseCommandLine } from "./cli/parse.ts";
import { loadConfig, UsageError, type Flags } from "./config/env.ts";
import { catalogFromConfig, openRepos } from "./deps.ts";
import { doctorWithModel } from "./doctor.ts";
import { GwError } from "./errors/gw-error.ts";
import { systemClock } from "./lib/clock.ts";
import { loadSecretKey, secretBox } from "./lib/secret-box.ts";
import { WebhookEmitter } from "./monitoring/webhooks/emitter.ts";
import type { Repos } from "./pipeline/deps.ts";
import { serveUntilSignal } from "./server.ts";
import { openDatabase } from "./store/db.ts";

/** Runs `fn` with the data directory's database opened on demand, and closes it. */
function withAdmin<T>(flags: Flags, fn: (ctx: AdminContext) => T): T {
  const config = loadConfig(flags);
  const opened: { db?: Database; repos?: Repos } = {};
  const open = (): Repos => (opened.repos ??= openRepos((opened.db = openDatabase(config.dataDir))));
  const ctx: AdminContext = {
    repos: open,
    secrets: () => secretBox(loadSecretKey(config.dataDir, config.secretKey)),
    // Key events are queued in the database; a running gw delivers them within a second or two.
    emit: (event) => new WebhookEmitter(open().webhookEvents, systemClock, (err) => console.error(`webhook event not stored: ${String(err)}`)).emit(event),
  };
  try {
    return fn(ctx);
  } finally {
    opened.db?.close();
  }
}

/** `gw config check`: what serve reads before it opens anything, read the same way. */
function configCheck(flags: Flags): string {
  const config = loadConfig(flags);
  catalogFromConfig(config.configFile);
  // Serve only warns about these; the check says them too, since a typo is why one runs it.
  for (const name of config.misspelledVariables) process.stderr.write(`warning: ${name}: not a variable gw reads\n`);
  return "ok";
}

const print = (value: unknown) => process.stdout.write((typeof value === "string" ? value : JSON.stringify(value, null, 2)) + "\n");

/** The exit code: 0 done, 1 failed, 2 wrong usage; -1 while `serve` keeps running. */
export function runCli(argv: readonly string[]): number {
  let commandUsage = usage();
  try {
    const run = parseCommandLine(argv);
    if (run.kind === "print") {
      print(run.text);
      return 0;
    }
    commandUsage = usage([run.command]);
    const name = run.command.path.join(" ");
    if (name === "serve") {
      // A port or data directory already in use exits 1 with a message.
      return serveUntilSignal(loadConfig(run.flags));
    }
    if (name === "doctor") {
      // The sentence model loads in its worker: the report is printed, and the process ends, once it answered.
      doctorWithModel().then((report) => {
        print(report);
        process.exit(report.ok ? 0 : 1);
      }, (err: unknown) => {
        process.stderr.write(`gw doctor: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(1);
      });
      return -1;
    }
    if (name === "migrate-to-postgres") {
      // PostgreSQL answers asynchronously: the report is printed, and the process ends, once it is done.
      runMigrateToPostgres(run.flags).then((report) => {
        print(report);
        process.exit(0);
      }, (err: unknown) => {
        process.stderr.write(`gw: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(1);
      });
      return -1;
    }
    if (name === "config check") print(configCheck(run.flags));
    else if (name === "backup") print(backupDataDir(loadConfig(run.flags).dataDir, run.args[0]!));
    else print(withAdmin(run.flags, (ctx) => runAdminCommand(name, run.args, run.flags, ctx)));
    return 0;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof UsageError) {
      process.stderr.write(`gw: ${message}\n${err instanceof CliUsageError ? err.usage : commandUsage}\n`);
      return 2;
    }
    process.stderr.write(`gw: ${message}\n`);
    // A value the admin code refused (a policy, a provider's name) is a usage mistake too.
    return err instanceof GwError && err.status === 400 ? 2 : 1;
  }
}
