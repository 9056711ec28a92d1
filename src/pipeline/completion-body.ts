// The non-streaming answer body: the upstream's completion with `model` set to gw's model id and
// the `gw` object added (docs/api.md "Chat completions", "The gw object"). When the upstream's own JSON text is at hand it
// is spliced rather than parsed and re-serialised whole, which keeps the hot path cheap.
import { RAW_BODY, type ChatCompletion } from "../canonical/completion.ts";

function splice(raw: string, upstreamModel: string, model: string, gwJson: string): string | null {
  const end = raw.lastIndexOf("}");
  // The key/value pair as compact JSON writes it; a string value cannot contain an unescaped
  // quote, so this sequence can only be a key. Anything else (pretty-printed JSON) falls back.
  const pair = `"model":${JSON.stringify(upstreamModel)}`;
  const at = raw.indexOf(pair);
  if (end < 0 || at < 0 || at > end) return null;
  const rest = raw.slice(at + pair.length, end).trimEnd();
  return `${raw.slice(0, at)}"model":${JSON.stringify(model)}${rest},"gw":${gwJson}}`;
}

export function completionBody(completion: ChatCompletion, model: string, gw: Record<string, unknown>): string {
  const gwJson = JSON.stringify(gw);
  const raw = completion[RAW_BODY];
  const spliced = raw !== undefined && typeof completion.model === "string" ? splice(raw, completion.model, model, gwJson) : null;
  if (spliced !== null) return spliced;
  const body = JSON.stringify({ ...completion, model });
  return `${body.slice(0, -1)},"gw":${gwJson}}`;
}
