// Whether a value reaches a provider in any spelling a model reads (the bypass corpus's check):
// every string and key of what was sent, base64 `data:` payloads decoded, read through the
// guard's own normalised view and again through an independent NFKC, separators dropped.
import { scanView } from "../../src/guard/normalize.ts";

const STRUCTURAL = /^(text|user|system|assistant|tool|function|image_url|object|string|content|json_schema|role|type)$/;

function strings(v: unknown, out: string[]): void {
  if (typeof v === "string") {
    if (STRUCTURAL.test(v)) return;
    out.push(v);
    const m = /^data:[^,]*;base64,/.exec(v);
    if (m) out.push(Buffer.from(v.slice(m[0].length), "base64").toString("utf8"));
  } else if (typeof v === "number") out.push(String(v));
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (typeof v === "object" && v !== null) {
    for (const [k, x] of Object.entries(v)) {
      if (!STRUCTURAL.test(k) && !/^(messages|model|tools|parameters|properties|url|name|arguments|description|id|tool_calls|tool_call_id)$/.test(k)) out.push(k);
      strings(x, out);
    }
  }
}

const squash = (s: string) => s.replace(/[\s.\-]/g, "").toLowerCase();

/** True when `canonical` can be read in `sent` (a parsed request body). */
export function leaks(sent: unknown, canonical: string): boolean {
  const all: string[] = [];
  strings(sent, all);
  const joined = all.join("");
  const want = squash(canonical);
  return [joined, scanView(joined).text, joined.normalize("NFKC"), all.map((s) => scanView(s).text).join("")].some((t) => squash(t).includes(want));
}
