// The commands gw knows and the flags each accepts (docs/running.md "Command line"): the one table
// that parsing, `gw help` and the usage printed on a mistake are made from.
import type { FlagSpec } from "../config/env.ts";

export interface FlagDoc {
  /** A placeholder for the value (`N`, `DIR`); none for a flag that stands alone. */
  value?: string;
  help: string;
  required?: boolean;
}

export interface Command {
  /** The words that name it: ["projects", "list"]. */
  path: readonly string[];
  /** Positional arguments, all required, in order. */
  args: readonly string[];
  summary: string;
  flags: Readonly<Record<string, FlagDoc>>;
}

const DATA: Record<string, FlagDoc> = { data: { value: "DIR", help: "the data directory (default ./data, or GW_DATA_DIR)" } };
const PROJECT: FlagDoc = { value: "ID", help: "the project's id (prj_...)", required: true };
const SERVE_FLAGS: Record<string, FlagDoc> = {
  port: { value: "N", help: "port to listen on, 1-65535, or 0 for any free one (default 8080, or PORT)" },
  host: { value: "H", help: "address to listen on (default 127.0.0.1, or HOST)" },
  ...DATA,
  config: { value: "FILE", help: "a JSON configuration file (default GW_CONFIG)" },
};

export const COMMANDS: readonly Command[] = [
  { path: ["serve"], args: [], summary: "run the gateway (the default when no command is given)", flags: SERVE_FLAGS },
  { path: ["config", "check"], args: [], summary: "check the environment and the GW_CONFIG file as serve would, start nothing", flags: SERVE_FLAGS },
  { path: ["projects", "create"], args: [], summary: "create a project", flags: { name: { value: "NAME", help: "its name", required: true }, ...DATA } },
  { path: ["projects", "list"], args: [], summary: "list every project", flags: DATA },
  { path: ["projects", "get"], args: ["ID"], summary: "show one project", flags: DATA },
  {
    path: ["projects", "update"], args: ["ID"], summary: "change a project's name, plan or policy (the policy merges key by key; null unsets a key)",
    flags: {
      name: { value: "NAME", help: "a new name" },
      plan: { value: "PLAN", help: "free, pro or business" },
      policy: { value: "JSON", help: `policy keys as a JSON object, e.g. '{"semantic_cache":true}' (docs/api.md "Project policy")` },
      ...DATA,
    },
  },
  {
    path: ["keys", "create"], args: [], summary: "create a key; its secret is printed only here",
    flags: {
      project: PROJECT,
      scopes: { value: "LIST", help: "comma-separated: chat,embeddings,models,cache,requests (default all but requests)" },
      test: { help: "a test key: simulated answers, nothing charged" },
      name: { value: "NAME", help: "a label for the key" },
      ...DATA,
    },
  },
  { path: ["keys", "list"], args: [], summary: "list a project's keys (never their secrets)", flags: { project: PROJECT, ...DATA } },
  { path: ["keys", "revoke"], args: ["KEY_ID"], summary: "revoke a key; it answers 401 from then on", flags: DATA },
  {
    path: ["provider-keys", "set"], args: [], summary: "store a project's own key for a provider (sealed, never shown again)",
    flags: {
      project: PROJECT,
      provider: { value: "NAME", help: "openai, anthropic, gemini, ... (docs/providers.md)", required: true },
      key: { value: "VALUE", help: "the provider's API key (visible in the process list: prefer --key-stdin)" },
      "key-stdin": { help: "read the provider's API key from standard input" },
      "base-url": { value: "URL", help: "the provider's address (Azure OpenAI, Ollama, vLLM need one)" },
      ...DATA,
    },
  },
  {
    path: ["provider-keys", "delete"], args: [], summary: "remove a project's own key for a provider",
    flags: { project: PROJECT, provider: { value: "NAME", help: "the provider", required: true }, ...DATA },
  },
  {
    path: ["credits", "add"], args: [], summary: "add prepaid credits (or record a payment)",
    flags: { project: PROJECT, amount: { value: "USD", help: "a number of USD above 0, e.g. 25 or 12.50", required: true }, ...DATA },
  },
  {
    path: ["invoices"], args: [], summary: "a project's monthly invoices",
    flags: { project: PROJECT, month: { value: "YYYY-MM", help: "one month only" }, ...DATA },
  },
  { path: ["backup"], args: ["DIR"], summary: "copy the database (consistently, while gw runs) and secret.key into DIR", flags: DATA },
  {
    path: ["migrate-to-postgres"], args: [], summary: "copy a stopped data directory into an empty PostgreSQL for the multi-instance mode (GW_DATABASE_URL, GW_SECRET_KEY; GW_REDIS_URL for idempotency results)",
    flags: { ...DATA, "skip-log": { help: "leave the request log and traces behind" } },
  },
  { path: ["doctor"], args: [], summary: "check SQLite, the vector-index addon, the tokenizer and the catalog (and PostgreSQL/Redis when configured)", flags: {} },
  { path: ["version"], args: [], summary: "print gw's version", flags: {} },
  { path: ["help"], args: [], summary: "help on every command, or on one: gw help projects update", flags: {} },
];

/** What parseArgs accepts for a command: its own flags and --help. */
export function flagSpec(command: Command): FlagSpec {
  const spec: Record<string, "string" | "boolean"> = { help: "boolean" };
  for (const [name, doc] of Object.entries(command.flags)) spec[name] = doc.value ? "string" : "boolean";
  return spec;
}

/** The longest command whose path starts `words`, or null. */
export function findCommand(words: readonly string[]): Command | null {
  let best: Command | null = null;
  for (const c of COMMANDS) {
    if (c.path.every((w, i) => words[i] === w) && (!best || c.path.length > best.path.length)) best = c;
  }
  return best;
}

/** The commands under a first word (`gw projects`), for a mistyped or missing second word. */
export const commandsUnder = (noun: string): Command[] => COMMANDS.filter((c) => c.path.length > 1 && c.path[0] === noun);

export function usageLine(c: Command): string {
  const flags = Object.entries(c.flags).map(([name, d]) => {
    const text = d.value ? `--${name} ${d.value}` : `--${name}`;
    return d.required ? text : `[${text}]`;
  });
  const args = c.path[0] === "help" ? ["[COMMAND]"] : c.args;
  return ["gw", ...c.path, ...args, ...flags].join(" ");
}

const EXIT_CODES = "Exit codes: 0 done, 1 failed (see the message), 2 wrong usage (unknown command or flag, a missing or bad value).";

export function usage(commands: readonly Command[] = COMMANDS): string {
  return ["Usage:", ...commands.map((c) => `  ${usageLine(c)}`), "", "gw help COMMAND, or gw COMMAND --help, says more.", EXIT_CODES].join("\n");
}

export function commandHelp(c: Command): string {
  const flags = Object.entries(c.flags).map(([name, d]) => `  ${(d.value ? `--${name} ${d.value}` : `--${name}`).padEnd(20)} ${d.help}${d.required ? " (required)" : ""}`);
  return [`Usage: ${usageLine(c)}`, "", c.summary[0]!.toUpperCase() + c.summary.slice(1) + ".", ...(flags.length > 0 ? ["", "Flags:", ...flags] : []), "", EXIT_CODES].join("\n");
}
