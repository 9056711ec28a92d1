// Opposite actions and directions the sentence model scores as near-identical ("How do I install X?"
// vs "How do I uninstall X?": cosine 0.97), so the literal guard refuses them (docs/semantic-cache.md
// "Literal guard"): a word on one side whose opposite is on the other side only.

/** Pairs read both ways. Only words whose swap asks for a different answer. */
const OPPOSITE = new Map<string, string>();
for (const pair of (
  "enable:disable encrypt:decrypt encode:decode encoding:decoding increase:decrease import:export upload:download " +
  "uploading:downloading login:logout signin:signout maximum:minimum max:min before:after add:remove buy:sell " +
  "buying:selling open:close start:stop push:pull first:last inside:outside input:output upgrade:downgrade " +
  "ascending:descending asc:desc higher:lower highest:lowest increase:reduce win:lose most:least best:worst " +
  "fastest:slowest cheapest:priciest hot:cold north:south east:west above:below true:false accept:reject " +
  "allow:deny allow:block send:receive sending:receiving lend:borrow inbound:outbound incoming:outgoing " +
  "positive:negative compress:decompress compile:decompile zip:unzip serialize:deserialize " +
  "plus:minus male:female"
).split(" ")) {
  const [a, b] = pair.split(":") as [string, string];
  OPPOSITE.set(a, b);
  OPPOSITE.set(b, a);
}

/** Prefixes that reverse a verb or adjective, with the shortest stem they may take: "uninstall",
 * "disconnect", "deactivate", "nonprofit". Shorter stems are too often another word ("under"). */
const PREFIXES: ReadonlyArray<readonly [string, number]> = [["un", 4], ["non", 3], ["dis", 4], ["de", 4]];

/** Whether `word`, on one side only, faces its opposite on the other side only. */
function faces(word: string, mine: ReadonlySet<string>, theirs: ReadonlySet<string>): boolean {
  const only = (w: string) => theirs.has(w) && !mine.has(w);
  const opposite = OPPOSITE.get(word);
  if (opposite !== undefined && only(opposite)) return true;
  for (const [prefix, stem] of PREFIXES) {
    if (word.length >= prefix.length + stem && word.startsWith(prefix) && only(word.slice(prefix.length))) return true;
    if (word.length >= stem && only(prefix + word)) return true;
  }
  return false;
}

/** `a` and `b` are the guard's token texts (" how do i install x "). Linear in their words. */
export function oppositesClash(a: string, b: string): boolean {
  const aw = new Set(a.split(" "));
  const bw = new Set(b.split(" "));
  for (const w of aw) if (w !== "" && !bw.has(w) && faces(w, aw, bw)) return true;
  return false;
}
