// Retention modes: what of a request's content gw may keep (the response cache and idempotency
// results; never the log or traces). docs/retention.md; docs/api.md "Project policy".
import { sensitiveContent, type SensitiveKind } from "../analysis/sensitive.ts";

export type RetentionMode = "standard" | "minimal" | "zero" | "redacted";

/** The project's mode; anything unset or unknown is the default, standard (docs/api.md "Project policy"). */
export function retentionOf(policy: { retention?: unknown }): RetentionMode {
  const r = policy.retention;
  return r === "minimal" || r === "zero" || r === "redacted" ? r : "standard";
}

/** Whether the mode lets the cache and idempotency keep content at all (redacted: when clean). */
export const keepsContent = (mode: RetentionMode): boolean => mode === "standard" || mode === "redacted";

/** Fields of gw's and the providers' wire JSON that are never content: ids, names of models and
 * enums, gw's own object, numbers' containers. Every other string is treated as content. */
const NOT_CONTENT: ReadonlySet<string> = new Set([
  "id", "object", "model", "created", "created_at", "system_fingerprint", "finish_reason", "role", "type",
  "status", "call_id", "item_id", "response_id", "tool_call_id", "service_tier", "encoding_format", "embedding",
  "usage", "gw", "code", "category", "param", "request_id", "sequence_number", "output_index", "content_index", "index",
]);

/** Every content string of a JSON value, grouped by path: the pieces of one path (a stream's
 * deltas) are joined without a gap, so an e-mail split across two chunks is whole again. */
function collect(value: unknown, path: string, out: Map<string, string>): void {
  if (typeof value === "string") {
    out.set(path, (out.get(path) ?? "") + value);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => collect(v, `${path}.${i}`, out));
  } else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) if (!NOT_CONTENT.has(k)) collect(v, `${path}.${k}`, out);
  }
}

const joined = (out: Map<string, string>): string => [...out.values()].join("\n");

/** The content text of JSON values (a request body, an answer). */
export function contentText(...values: unknown[]): string {
  const out = new Map<string, string>();
  for (const v of values) collect(v, "", out);
  return joined(out);
}

/** The content text of a response body: one JSON document, or SSE whose data lines are JSON. */
export function bodyContentText(bytes: Uint8Array): string {
  const text = new TextDecoder().decode(bytes);
  const out = new Map<string, string>();
  if (text.trimStart().startsWith("{")) {
    collect(parseOr(text, text), "", out);
    return joined(out);
  }
  for (const line of text.split("\n")) {
    if (!line.startsWith("data:")) continue;
    const data = line.slice(5).trim();
    if (data !== "[DONE]") collect(parseOr(data, data), "", out);
  }
  return joined(out);
}

/** A body that does not parse is scanned as the text it is. */
function parseOr(text: string, fallback: unknown): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}

/** The parts of a request body that carry the caller's text (chat, responses, embeddings). */
export function requestContentText(body: unknown): string {
  if (typeof body !== "object" || body === null) return "";
  const b = body as Record<string, unknown>;
  return contentText(b.messages, b.input, b.instructions, b.prompt);
}

/** Redacted mode's test: the first sensitive finding in any of the texts, or null. */
export function sensitiveIn(...texts: string[]): SensitiveKind | null {
  for (const t of texts) {
    const found = sensitiveContent(t);
    if (found) return found;
  }
  return null;
}

/** Whether an idempotent request's finished result may be kept (docs/retention.md): standard
 * always, redacted when neither the request's text nor the response's holds anything sensitive,
 * minimal and zero never (the key then keeps its fingerprint and status only). */
export function mayKeepResult(mode: RetentionMode, requestBody: unknown, responseBody: Uint8Array): boolean {
  if (mode === "standard") return true;
  if (mode !== "redacted") return false;
  return sensitiveIn(requestContentText(requestBody), bodyContentText(responseBody)) === null;
}
