// Every string a request carries to a provider (docs/guard.md "What is scanned"); only gw's own
// fields are skipped. Strings are replaced in place, so objects keep their identity.
import { createHmac, randomBytes } from "node:crypto";
import type { ChatRequest } from "../canonical/chat.ts";
import { GW_OPTION_NAMES } from "../schema/chat-completions.ts";

/** `joins`: false for names and enum-like words (keys, `role`, `type`), which are scanned alone
 * but never read as part of a value split across adjacent texts (scan.ts). */
export type TextMap = (text: string, joins?: boolean) => string;

const STRUCTURAL = new Set(["role", "type"]);

/** Field names of the chat format: fixed words, never a value, so not scanned (a request of 200k
 * messages would otherwise scan 400k copies of "role" and "content"). Unknown keys still are. */
const KNOWN_KEYS = new Set([
  "role", "content", "type", "text", "name", "tool_calls", "tool_call_id", "function", "arguments", "id",
  "image_url", "url", "detail", "input_audio", "file", "refusal", "properties", "required", "description",
  "parameters", "items", "enum", "strict", "json_schema", "schema", "additionalProperties",
]);

/** The routing-only `model`, and gw's extension fields (docs/api.md "Extension fields") should a
 * request still carry them: they never reach a provider. */
const NOT_SENT: ReadonlySet<string> = new Set(["model", ...GW_OPTION_NAMES]);

const isPlain = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** `user` is the cache's per-user scope: a redacted one becomes a pseudonym keyed per process, so
 * two users never share a placeholder (and a scope), and the provider cannot reverse it. */
const PSEUDONYM_KEY = randomBytes(32);
const pseudonym = (user: string) => `gw-user-${createHmac("sha256", PSEUDONYM_KEY).update(user).digest("hex").slice(0, 24)}`;

const DATA_URL = /^data:([^,]{0,200});base64,/i;
const TEXTUAL = /^(?:text\/|application\/(?:json|xml|x-www-form-urlencoded|javascript)|[^;]*\+(?:json|xml))/i;

function mapString(s: string, map: TextMap): string {
  // Only a text opening with `d` or `D` can be a data URL: the others skip the regex.
  if ((s.charCodeAt(0) | 0x20) !== 100) return map(s);
  const head = DATA_URL.exec(s);
  if (!head) return map(s);
  // The payload is read too: a text type as UTF-8 text; anything else (an image) byte by byte as
  // ASCII, other bytes read as NUL, so a large image costs the detector's pass and no more.
  const prefix = map(head[0]);
  const body = Buffer.from(s.slice(head[0].length), "base64");
  let text: string;
  if (TEXTUAL.test(head[1]!)) text = body.toString("utf8");
  else {
    for (let i = 0; i < body.length; i++) if (body[i]! >= 0x80) body[i] = 0;
    text = body.toString("latin1");
  }
  const mapped = map(text);
  if (mapped === text && prefix === head[0]) return s;
  // Redacted: the payload is re-encoded from the redacted text (an image so changed is broken).
  return prefix + (mapped === text ? s.slice(head[0].length) : Buffer.from(mapped, "utf8").toString("base64"));
}

/** No finding is shorter (an e-mail address `a@b.c`); a text read alone below it is skipped. */
const SHORTEST_FINDING = 5;

function mapValue(v: unknown, map: TextMap, joins = true): unknown {
  if (typeof v === "string") return joins ? mapString(v, map) : v.length < SHORTEST_FINDING ? v : map(v, false);
  if (typeof v === "number") {
    // A card number as a JSON number (a schema default, an example) reaches the model as digits.
    if (!Number.isSafeInteger(v) || Math.abs(v) < 10_000_000) return v;
    const s = String(v);
    const m = map(s);
    return m === s ? v : m;
  }
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = mapValue(v[i], map);
    return v;
  }
  if (isPlain(v)) mapObject(v, map);
  return v;
}

function mapObject(o: Record<string, unknown>, map: TextMap): void {
  for (const key of Object.keys(o)) {
    const value = mapValue(o[key], map, !STRUCTURAL.has(key));
    // Schema property names and unknown fields' names are sent too, so they are scanned.
    const k = KNOWN_KEYS.has(key) ? key : map(key, false);
    if (k !== key) delete o[key];
    o[k] = value;
  }
}

export function mapChatTexts(request: ChatRequest, map: TextMap): void {
  // Tools first: placeholders are numbered in reading order, and a new value in a later turn must
  // not renumber the tools' ones, which sit in the prompt prefix a provider caches (cache_align).
  const keys = Object.keys(request);
  const at = keys.indexOf("tools");
  if (at > 0) keys.unshift(...keys.splice(at, 1));
  for (const key of keys) {
    if (NOT_SENT.has(key)) continue;
    const v = request[key];
    if (key === "user" && typeof v === "string") {
      const m = map(v);
      if (m !== v) request.user = pseudonym(v);
      continue;
    }
    if (typeof v === "number" || typeof v === "boolean") continue; // sampling parameters, not values
    const k = map(key, false);
    const value = mapValue(v, map);
    if (k !== key) delete request[key];
    request[k] = value;
  }
}

export function mapInputs(input: string[], map: TextMap): string[] {
  return input.map((text) => map(text));
}
