// From argv to what to do, before anything is opened or created: help and the version are printed,
// and a mistyped command, flag or missing value is refused with its usage (exit 2).
import { COMPONENT_VERSIONS } from "../config/versions.ts";
import { parseArgs, UsageError, type Flags } from "../config/env.ts";
import { commandHelp, commandsUnder, COMMANDS, findCommand, flagSpec, usage, type Command } from "./commands.ts";

export type Invocation =
  | { kind: "print"; text: string }
  | { kind: "run"; command: Command; args: string[]; flags: Flags };

/** A usage mistake and the usage to print under it on stderr. */
export class CliUsageError extends UsageError {
  constructor(message: string, readonly usage: string) {
    super(message);
  }
}

export const versionText = (): string => `gw ${COMPONENT_VERSIONS.gateway} (API ${COMPONENT_VERSIONS.api})`;

function helpFor(words: readonly string[]): string {
  if (words.length === 0) return usage();
  const command = findCommand(words);
  if (command && command.path.length === words.length) return commandHelp(command);
  const group = commandsUnder(words[0]!);
  if (words.length === 1 && group.length > 0) return usage(group);
  throw new CliUsageError(`No command 'gw ${words.join(" ")}'.`, usage());
}

function checkPort(flags: Flags, command: Command): void {
  if (flags.port === undefined) return;
  const port = Number(flags.port);
  if (typeof flags.port !== "string" || !/^\d+$/.test(flags.port) || port > 65535) {
    throw new CliUsageError(`--port must be a whole number from 1 to 65535, or 0 for any free port (got "${String(flags.port)}").`, usage([command]));
  }
}

export function parseCommandLine(argv: readonly string[]): Invocation {
  const first = argv[0];
  if (first === "--help" || first === "-h") return { kind: "print", text: usage() };
  if (first === "--version") return { kind: "print", text: versionText() };
  // Leading words name the command; none (`gw`, `gw --port 9000`) means serve.
  let lead = 0;
  while (lead < argv.length && !(argv[lead] as string).startsWith("-")) lead++;
  const words = argv.slice(0, lead);
  if (words[0] === "help") return { kind: "print", text: helpFor(words.slice(1)) };
  const command = words.length === 0 ? COMMANDS[0]! : findCommand(words);
  if (!command) {
    const group = commandsUnder(words[0]!);
    const what = group.length > 0 && words.length > 1 ? `${words[0]} ${words[1]}` : words[0];
    throw new CliUsageError(group.length > 0 && words.length === 1 ? `'gw ${words[0]}' needs a command.` : `Unknown command: ${what}`, usage(group.length > 0 ? group : COMMANDS));
  }
  const rest = argv.slice(words.length === 0 ? 0 : command.path.length);
  let parsed: { words: string[]; flags: Flags };
  try {
    parsed = parseArgs(rest, flagSpec(command));
  } catch (err) {
    if (err instanceof UsageError) throw new CliUsageError(err.message, usage([command]));
    throw err;
  }
  const { words: args, flags } = parsed;
  if (flags.help) return { kind: "print", text: commandHelp(command) };
  if (command.path[0] === "version") return { kind: "print", text: versionText() };
  if (args.length < command.args.length) {
    throw new CliUsageError(`'gw ${command.path.join(" ")}' needs ${command.args.slice(args.length).join(" ")}.`, usage([command]));
  }
  if (args.length > command.args.length) throw new CliUsageError(`Unexpected argument: ${args[command.args.length]}`, usage([command]));
  for (const [name, doc] of Object.entries(command.flags)) {
    if (doc.required && (typeof flags[name] !== "string" || flags[name] === "")) throw new CliUsageError(`--${name} is required.`, usage([command]));
  }
  checkPort(flags, command);
  return { kind: "run", command, args, flags };
}
