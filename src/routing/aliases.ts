// Model aliases (docs/config.md "Aliases"): ids clients send by default, and the operator's own,
// each naming a catalog model or a routing profile. Exact ones are one Map lookup; a wildcard
// (one `*`) is tried only for a name that is neither an alias nor known.

/** Ids popular clients send when nobody picked a model; skipped where the catalog knows the id. */
export const DEFAULT_ALIASES: Readonly<Record<string, string>> = {
  // LlamaIndex's default embedding model (retired by OpenAI); same 1536-dimension vectors.
  "text-embedding-ada-002": "openai/text-embedding-3-small",
  // The OpenAI Agents SDK's default model (@openai/agents-core getDefaultModel, 2026).
  "gpt-5.4-mini": "openai/gpt-5-mini",
  // LangChain's and many tutorials' long-time default.
  "gpt-3.5-turbo": "openai/gpt-4o-mini",
  // Dated snapshot ids (Claude Code and Anthropic's SDK examples send these) of catalog models.
  "claude-sonnet-4-5-20250929": "anthropic/claude-sonnet-4-5",
  "claude-haiku-4-5-20251001": "anthropic/claude-haiku-4-5",
  "claude-opus-4-1-20250805": "anthropic/claude-opus-4-1",
  "claude-3-5-haiku-20241022": "anthropic/claude-3-5-haiku-latest",
};

interface Wildcard {
  prefix: string;
  suffix: string;
  target: string;
}

export interface Aliases {
  readonly exact: ReadonlyMap<string, string>;
  /** The target of the most specific wildcard matching `name`, if any. */
  wildcard(name: string): string | undefined;
  readonly hasWildcards: boolean;
}

/** An alias that cannot be used; the message starts with its JSON path (`aliases["gpt-*"]`). */
export class AliasError extends Error {}

/** `target` resolved to a catalog id or a profile, or null when it names neither. */
export type TargetOf = (target: string) => string | null;

export function buildAliases(own: Readonly<Record<string, string>>, targetOf: TargetOf, known: (name: string) => boolean): Aliases {
  const exact = new Map<string, string>();
  const wildcards: Wildcard[] = [];
  for (const [name, target] of Object.entries(DEFAULT_ALIASES)) {
    const resolved = targetOf(target);
    if (resolved && !known(name)) exact.set(name, resolved);
  }
  for (const [name, target] of Object.entries(own)) {
    const at = `aliases[${JSON.stringify(name)}]`;
    const resolved = targetOf(target);
    if (!resolved) throw new AliasError(`${at}: expected a catalog model id or a routing profile (gw-auto, gw-fast...), got ${JSON.stringify(target)}`);
    const star = name.indexOf("*");
    if (star < 0) {
      exact.set(name, resolved);
      continue;
    }
    if (name.indexOf("*", star + 1) >= 0) throw new AliasError(`${at}: expected at most one "*" in an alias`);
    wildcards.push({ prefix: name.slice(0, star), suffix: name.slice(star + 1), target: resolved });
  }
  // The longest fixed part wins ("gpt-4o*" before "gpt-*"); equal ones keep the file's order.
  wildcards.sort((a, b) => b.prefix.length + b.suffix.length - (a.prefix.length + a.suffix.length));
  return {
    exact,
    hasWildcards: wildcards.length > 0,
    wildcard(name) {
      for (const w of wildcards) {
        if (name.length >= w.prefix.length + w.suffix.length && name.startsWith(w.prefix) && name.endsWith(w.suffix)) return w.target;
      }
      return undefined;
    },
  };
}
