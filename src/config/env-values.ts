// Checks of single environment values for config/env.ts: each bad value stops start-up with
// `Invalid NAME "value": expected ...` (docs/config.md "Environment variables").
import { isIP } from "node:net";

const invalid = (name: string, text: string, expected: string) => new Error(`Invalid ${name} "${text}": expected ${expected}.`);

/** pino's levels, plus `silent`. */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

export function parseLogLevel(name: string, text: string): string {
  if ((LOG_LEVELS as readonly string[]).includes(text)) return text;
  throw invalid(name, text, `one of ${LOG_LEVELS.join(", ")}`);
}

/** An interface address or host name to listen on; a URL or an address with its port is a common slip. */
export function parseHost(name: string, text: string): string {
  if (isIP(text) !== 0 || /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(text)) return text;
  const hint = text.includes("://") ? " (no scheme)" : /:\d+$/.test(text) ? " (the port goes in PORT or --port)" : "";
  throw invalid(name, text, `an IP address or host name such as 127.0.0.1, 0.0.0.0, :: or localhost${hint}`);
}

/** On/off switches: 1/true or 0/false; anything else is more likely a typo than an off. */
export function parseSwitch(name: string, text: string | undefined): boolean {
  if (text === undefined || text === "" || text === "0" || text === "false") return false;
  if (text === "1" || text === "true") return true;
  throw invalid(name, text, "1 or true to turn it on, 0 or false (or unset) to leave it off");
}

/** A provider's base URL, as its SDK takes it (docs/providers.md "Enabling a provider"). */
export function parseBaseUrl(name: string, text: string | undefined): string | null {
  if (!text) return null;
  const url = URL.canParse(text) ? new URL(text) : null;
  if (url && (url.protocol === "http:" || url.protocol === "https:")) return text;
  throw invalid(name, text, "an http(s) URL such as http://127.0.0.1:11434/v1");
}

/** Names that look like gw's but that gw does not read: set, never read, and within two edits of
 * a name it did read (`GW_LOG_LEVL`, `OPENAI_APIKEY`). Start-up warns about each. */
export function misspelledVariables(names: readonly string[], read: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const name of names) {
    if (read.has(name) || !(name.startsWith("GW_") || /_(?:API_?KEY|BASE_?URL)$/.test(name))) continue;
    let nearest: string | null = null;
    for (const known of read) if (editDistance(name, known, 2) <= 2) nearest ??= known;
    if (nearest) out.push(`${name} (did you mean ${nearest}?)`);
  }
  return out;
}

/** Levenshtein distance, or max + 1 once it is certainly over `max`. */
function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    if (Math.min(...next) > max) return max + 1;
    row = next;
  }
  return row[b.length]!;
}
