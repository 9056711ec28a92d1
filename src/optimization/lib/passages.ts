// Passage-level de-duplication for dedupe_documents (docs/optimization.md "dedupe_documents"): a
// blank-line-separated passage of 200+ characters seen before, in an earlier document or earlier in
// the same one, becomes a reference to where it stands. One pass, one Map lookup a passage.
import { ownPassageRef, passageRef } from "./references.ts";

export const MIN_PASSAGE = 200;
const SNIPPET_CHARS = 48;

/** A replaced passage: where its reference sits in the new text, and where the copy it names is. */
export interface PassageRef {
  /** Offset and length of the reference in this message's new text. */
  at: number;
  length: number;
  passage: string;
  /** The message holding the copy, and the copy's offset in that message's new text. */
  msg: number;
  copyAt: number;
}

export interface PassagePlan {
  text: string;
  refs: PassageRef[];
}

/** The first words of a text, on one line and without quotes, so a model can find the copy. */
export function snippet(text: string): string {
  let flat = "";
  let space = false;
  for (let i = 0; i < text.length && flat.length <= SNIPPET_CHARS + 16; i++) {
    const c = text[i]!;
    if (c === '"' || c === " " || c === "\n" || c === "\t" || c === "\r") space = flat.length > 0;
    else {
      if (space) flat += " ";
      space = false;
      flat += c;
    }
  }
  if (flat.length <= SNIPPET_CHARS) return flat;
  const cut = flat.lastIndexOf(" ", SNIPPET_CHARS);
  return `${flat.slice(0, cut > 16 ? cut : SNIPPET_CHARS)}...`;
}

const referenceTo = (msg: number, self: number, passage: string): string =>
  msg === self ? ownPassageRef(snippet(passage)) : passageRef(msg, snippet(passage));

/**
 * `texts[i]`: message i's text when its passages count (null otherwise); `changeable(i)`: whether its
 * repeats may be replaced. Returns the new text of each message that changed.
 */
export function planPassages(texts: readonly (string | null)[], changeable: (i: number) => boolean): Map<number, PassagePlan> {
  const seen = new Map<string, { msg: number; at: number }>();
  const plans = new Map<number, PassagePlan>();
  texts.forEach((text, i) => {
    if (text === null) return;
    const canChange = changeable(i);
    let out = "";
    const refs: PassageRef[] = [];
    for (let pos = 0; ; ) {
      const gap = text.indexOf("\n\n", pos);
      const end = gap < 0 ? text.length : gap;
      const passage = text.slice(pos, end);
      const first = passage.length >= MIN_PASSAGE ? seen.get(passage) : undefined;
      const ref = first && canChange ? referenceTo(first.msg, i, passage) : null;
      if (first && ref && ref.length < passage.length) {
        refs.push({ at: out.length, length: ref.length, passage, msg: first.msg, copyAt: first.at });
        out += ref;
      } else {
        if (!first && passage.length >= MIN_PASSAGE) seen.set(passage, { msg: i, at: out.length });
        out += passage;
      }
      if (gap < 0) break;
      out += "\n\n";
      pos = gap + 2;
    }
    if (refs.length > 0) plans.set(i, { text: out, refs });
  });
  return plans;
}

/** The original text back from a plan's new text: each reference replaced by its passage. */
export function expand(text: string, refs: readonly PassageRef[]): string {
  let out = "";
  let from = 0;
  for (const r of refs) {
    out += text.slice(from, r.at) + r.passage;
    from = r.at + r.length;
  }
  return out + text.slice(from);
}
