// Word-level helpers of the semantic cache (docs/semantic-cache.md "Embedders"): the hashed n-gram embedder's
// tokenizer, stopwords and suffix folding; the literal guard shares the stopword list.

/** Lowercased words: letters and digits, with inner apostrophes, dots and hyphens kept ("don't", "v2.1"). */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().replace(/\u2019/g, "'").matchAll(/[\p{L}\p{N}]+(?:['.\-][\p{L}\p{N}]+)*/gu)) out.push(m[0]);
  return out;
}

// Function words: they carry the grammar of a question, not what it is about. Negations are NOT here:
// they change the answer, so they count as content.
export const STOPWORDS: ReadonlySet<string> = new Set(
  ("a an the and or but if then so of to in on at by for with from into onto over under about as than " +
    "is are was were be been being am do does did doing done have has had having will would shall should " +
    "can could may might must i me my mine we us our you your yours he him his she her it its they them " +
    "their this that these those there here what which who whom whose when where why how " +
    "some any all each every more most much many other such own same just only also very too really " +
    "get got getting go going make made let s t d ll m re ve thing things way ways " +
    "please tell explain know want need like someone something anyone anything mean meaning").split(" "),
);

/** Light suffix folding so "passwords"/"password" and "resetting"/"reset" meet; not a real stemmer. */
export function stem(word: string): string {
  if (word.length <= 4 || /\d/.test(word)) return word;
  for (const suffix of ["ingly", "edly", "ings", "ing", "ies", "ied", "ed", "es", "ly", "s"]) {
    if (word.endsWith(suffix) && word.length - suffix.length >= 3) {
      const base = word.slice(0, -suffix.length);
      if (suffix === "ies" || suffix === "ied") return `${base}y`;
      // "running" -> "run", "stopped" -> "stop"
      const last = base.length - 1;
      return base.length > 3 && base[last] === base[last - 1] && !/[aeiouls]/.test(base[last] ?? "") ? base.slice(0, -1) : base;
    }
  }
  return word;
}
