// The analyzer's output, prompt for prompt, as digests (issue 19 item 4): a speed-up of the scan must
// leave every digest as it was. `bun bench/micro/analyze-equivalence.ts write FILE` stores the prompts
// (the repository's corpora and tests) with their digests, `... check FILE` recomputes (exit 1 on a difference).
import { Glob } from "bun";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { analyzeRequest } from "../../src/analysis/analyzer.ts";
import { scan } from "../../src/analysis/scan.ts";
import { sensitiveContent } from "../../src/analysis/sensitive.ts";
import { boundMessageTokens } from "../../src/analysis/tokens.ts";
import type { ChatRequest } from "../../src/canonical/chat.ts";
import { base64, prose } from "../hostile/inputs.ts";
import { promptOfTokens } from "./prompt.ts";

const root = new URL("../../", import.meta.url).pathname;

/** String literals of a source file, raw (escapes left as written: any text is a valid input). */
function literals(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(/"((?:[^"\\\n]|\\.){3,})"|'((?:[^'\\\n]|\\.){3,})'|`((?:[^`\\$]|\\.|\$(?!\{)){3,})`/g)) {
    const raw = m[1] ?? m[2] ?? m[3] ?? "";
    out.push(raw);
    if (m[1] !== undefined) {
      try {
        const decoded = JSON.parse(`"${raw}"`) as string;
        if (decoded !== raw) out.push(decoded);
      } catch {}
    }
  }
  return out;
}

/** A seeded mix of cue words, numbers, dates, quotes, code, math, links and other scripts. */
function fuzz(count: number): string[] {
  let s = 12345;
  const r = (): number => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  const parts = (
    "the,a,my,I,me,order,account,May,march,5,12.,2024,3rd,of,translate,summarise,write,code,fix,bug,sql,? ,. ,! ,\n,\n\n," +
    "- ,* ,1. ,2) ,```js\nlet x = 1;\n```,`x`,{,},;,(),( ,),x,y,=,+,2x,^,sin(,f(x),\\frac,∑,√,\",“,”,„,',’,l'article,step-by-step,and/or," +
    "don't,can't,isn't,New,York,Paris,OK,Please,#12345,acct,number,no.,4471,$5,17%,of,20%,1,234,3.14,v3.12,10kg,12:30,2024-05-01,q3," +
    "https://example.com/a?b=1,www.foo.org,me@x.io,+1 (555) 123-4567,4111 1111 1111 1111,123-45-6789,DE89 3704 0044 0532 0130 00," +
    "je,le,der,und,el,il,het,de,ça,où,für,ñ,ß,é,привет,мой,заказ,μου,שלי,مرحبا,پ,नमस्ते,สวัสดี,안녕하세요,내 계정,こんにちは,私の注文,你好,我的订单,订单12345," +
    "Ⅷ,🙂,👩‍👩‍👧,\t,\u00a0,\r\n,today,tomorrow,Monday,weather,stock,price,latest,news,not,never,without,instead of,rather than,must,at least,first,then,finally," +
    "explain,what,is,how,do,compare,pros,cons,poem,story,email,classify,sentiment,extract,JSON,table,bullet,points,tl;dr,hi,thanks,hello"
  ).split(",");
  const out: string[] = [];
  for (let k = 0; k < count; k++) {
    const n = 1 + Math.floor(r() * (k % 10 === 0 ? 900 : 60));
    let t = "";
    for (let i = 0; i < n; i++) {
      const p = parts[Math.floor(r() * parts.length)] ?? "";
      const sep = r();
      t += (sep < 0.7 ? " " : sep < 0.8 ? "" : sep < 0.9 ? "\n" : ", ") + (r() < 0.15 ? p.toUpperCase() : r() < 0.15 ? p.charAt(0).toUpperCase() + p.slice(1) : p);
    }
    out.push(r() < 0.5 ? t.trim() : t);
  }
  return out;
}

function corpus(): string[] {
  const texts: string[] = [];
  const evalSet = JSON.parse(readFileSync(`${root}test/fixtures/analyzer-eval.json`, "utf8")) as Array<{ prompt: string }>;
  for (const c of evalSet) texts.push(c.prompt);
  const files = [...new Glob("{test,bench}/**/*.ts").scanSync(root)].filter((f) => !f.includes("semantic")).sort();
  for (const f of files) texts.push(...literals(readFileSync(`${root}${f}`, "utf8")));
  texts.push("Summarise the following note for a colleague. ".repeat(20).slice(0, 900));
  texts.push(`r7Qx-000123 ${"Summarise the following note for a colleague. ".repeat(20).slice(0, 900)}`);
  texts.push(promptOfTokens(1_000), promptOfTokens(4_000), prose(50_000), base64(20_000), "a".repeat(10_000), "7".repeat(20_000), "!?".repeat(5_000));
  texts.push("漢字仮名交じり文".repeat(500), "👩‍👩‍👧‍👦".repeat(400), "hello ".repeat(3000));
  texts.push(...fuzz(3000));
  const unique = [...new Set(texts)];
  // Variants: case, the bench's unique prefix, and the prompt inside a long text (head, middle, tail zones).
  const variants: string[] = [];
  for (let i = 0; i < unique.length; i++) {
    const t = unique[i] ?? "";
    variants.push(t, t.toUpperCase(), `r7Qx-${i} ${t}`);
    if (i % 7 === 0) variants.push(`${unique[i + 1] ?? ""}\n${t}\n${unique[i + 2] ?? ""} ${(unique[i + 3] ?? "").repeat(3)}\n${t}`);
  }
  return variants;
}

const sha = (s: string): string => createHash("sha256").update(s).digest("hex").slice(0, 24);

function digest(text: string, i: number): string {
  const req: ChatRequest = { model: "gw-auto", messages: [{ role: "user", content: text }], max_tokens: i % 3 === 0 ? 64 : undefined };
  const a = analyzeRequest(req, { inputTokensBound: boundMessageTokens(req.messages), customerTier: i % 5 === 0 ? "gold" : undefined });
  const s = scan(text);
  const signals = {
    taskScores: Array.from(s.taskScores), subScores: Array.from(s.subScores), langScores: Array.from(s.langScores), scripts: Array.from(s.scripts),
    live: s.live, personal: s.personal, digits: s.digits, constraints: s.constraints, steps: s.steps, listItems: s.listItems, codeFences: s.codeFences,
    codeMarks: s.codeMarks, mathMarks: s.mathMarks, questions: s.questions, questionEnd: s.questionEnd, words: s.words, entities: s.entities, chars: s.chars,
  };
  return sha(JSON.stringify([a, signals, sensitiveContent(text)]));
}

const [mode, file] = [process.argv[2], process.argv[3]];
if ((mode !== "write" && mode !== "check") || !file) {
  console.error("usage: bun bench/micro/analyze-equivalence.ts write|check FILE");
  process.exit(2);
}
// The check reads the prompts stored with the digests: tests edited since still compare like with like.
const stored = mode === "check" ? (JSON.parse(readFileSync(file, "utf8")) as { texts: string[]; digests: string[] }) : null;
const texts = stored?.texts ?? corpus();
const digests = texts.map((t, i) => digest(t, i));
if (stored === null) {
  writeFileSync(file, JSON.stringify({ texts, digests }));
  console.log(`${texts.length} prompts, digests written to ${file}`);
} else {
  let diff = 0;
  for (let i = 0; i < texts.length; i++) {
    if (stored.digests[i] === digests[i]) continue;
    if (diff++ < 10) console.log(`#${i} differs: ${JSON.stringify((texts[i] ?? "").slice(0, 160))}`);
  }
  console.log(`${texts.length} prompts, ${diff} differ`);
  process.exit(diff === 0 ? 0 : 1);
}
