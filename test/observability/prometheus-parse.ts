// A strict reader of the Prometheus text format 0.0.4 for tests: every line must be a HELP, a
// TYPE or a sample of a family declared before it; label values are unescaped.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  types: Map<string, string>;
  samples: Sample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\[\\"n])*)"(,|$)/y;

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const m = LABEL.exec(text);
    if (!m) throw new Error(`bad labels: {${text}}`);
    labels[m[1]!] = m[2]!.replace(/\\([\\"n])/g, (_, c: string) => (c === "n" ? "\n" : c));
  }
  return labels;
}

function parseValue(text: string): number {
  if (text === "+Inf") return Infinity;
  if (text === "-Inf") return -Infinity;
  const n = Number(text);
  if (text === "NaN" || !Number.isNaN(n)) return n;
  throw new Error(`bad value: ${text}`);
}

export function parseExposition(text: string): Exposition {
  if (!text.endsWith("\n")) throw new Error("an exposition ends with a line feed");
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.slice(0, -1).split("\n")) {
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (meta) {
      if (meta[1] === "TYPE") types.set(meta[2]!, meta[3]!);
      continue;
    }
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`bad line: ${line}`);
    const name = m[1]!;
    const family = types.has(name) ? name : name.replace(/_(bucket|sum|count)$/, "");
    if (!types.has(family)) throw new Error(`sample before its TYPE: ${line}`);
    samples.push({ name, labels: m[2] ? parseLabels(m[2]) : {}, value: parseValue(m[3]!) });
  }
  return { types, samples };
}

/** The sum over samples of `name` whose labels include `match`. */
export function total(e: Exposition, name: string, match: Record<string, string> = {}): number {
  return e.samples
    .filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v))
    .reduce((n, s) => n + s.value, 0);
}
