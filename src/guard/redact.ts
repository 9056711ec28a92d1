// Placeholders for findings (docs/guard.md): `[EMAIL_1]`, `[CARD_2]`... numbered per kind in the
// order first seen, the same value getting the same placeholder everywhere in one request, so the
// model can still tell "the same address twice" from "two addresses". One Redactor per request.
import { LABEL, type Finding, type Kind } from "./kinds.ts";
import type { Located } from "./scan.ts";

/** What makes two spellings the same value: separators in numbers, case in addresses. */
function normalized(kind: Kind, value: string): string {
  if (kind === "email") return value.toLowerCase();
  if (kind === "phone" || kind === "card") return value.replace(/\D/g, "");
  if (kind === "iban") return value.replace(/\s/g, "").toUpperCase();
  return value;
}

export class Redactor {
  private readonly byValue = new Map<string, string>();
  private readonly next = new Map<Kind, number>();

  placeholder(kind: Kind, value: string): string {
    const key = `${kind}\u0000${normalized(kind, value)}`;
    let p = this.byValue.get(key);
    if (p === undefined) {
      const n = (this.next.get(kind) ?? 0) + 1;
      this.next.set(kind, n);
      p = `[${LABEL[kind]}_${n}]`;
      this.byValue.set(key, p);
    }
    return p;
  }

  /** The text with the given findings (in order, not overlapping) replaced. */
  apply(text: string, findings: readonly Finding[]): string {
    if (findings.length === 0) return text;
    let out = "";
    let at = 0;
    for (const f of findings) {
      out += text.slice(at, f.start) + this.placeholder(f.kind, text.slice(f.start, f.end));
      at = f.end;
    }
    return out + text.slice(at);
  }

  /** The text with located findings replaced; each keeps the placeholder of its normalised
   * spelling, so `a\u0040b.com` and `a@b.com` are the same value. */
  applyLocated(text: string, findings: readonly Located[]): string {
    let out = "";
    let at = 0;
    for (const f of findings) {
      out += text.slice(at, f.start) + this.placeholder(f.kind, f.value);
      at = f.end;
    }
    return out + text.slice(at);
  }
}
