// Prometheus text exposition format 0.0.4 (docs/observability.md "Export"), written by hand:
// counter and histogram families keyed by their label values, with a cap on series per family so
// an unexpected label value can never grow memory or the scrape without bound.

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** Label values escape backslash, double quote and line feed (the format's only escapes). */
export function escapeLabelValue(value: string): string {
  return /[\\"\n]/.test(value) ? value.replace(/[\\"\n]/g, (c) => (c === "\n" ? "\\n" : `\\${c}`)) : value;
}

/** HELP text escapes backslash and line feed. */
const escapeHelp = (text: string): string => text.replace(/[\\\n]/g, (c) => (c === "\n" ? "\\n" : "\\\\"));

export function formatValue(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (n === Infinity) return "+Inf";
  if (n === -Infinity) return "-Inf";
  return String(n);
}

/** `{a="x",b="y"}`, or "" without labels. */
export function labelText(names: readonly string[], values: readonly string[]): string {
  if (names.length === 0) return "";
  return `{${names.map((n, i) => `${n}="${escapeLabelValue(values[i] ?? "")}"`).join(",")}}`;
}

/** Collects families into one exposition; every family is HELP, TYPE, then its samples. */
export class TextWriter {
  private readonly out: string[] = [];

  family(name: string, type: "counter" | "gauge" | "histogram", help: string): this {
    this.out.push(`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`);
    return this;
  }

  sample(name: string, labels: string, value: number): this {
    this.out.push(`${name}${labels} ${formatValue(value)}`);
    return this;
  }

  toString(): string {
    return this.out.join("\n") + "\n";
  }
}

interface Series<S> {
  labels: string;
  state: S;
}

/** Series looked up one label value at a time: cheaper on the request path than joining the
 * values into one key (about 50 ns instead of 140 ns for five labels). */
type Trie<S> = Map<string, Trie<S> | Series<S>>;

abstract class Family<S> {
  private readonly trie: Trie<S> = new Map();
  protected readonly series: Array<Series<S>> = [];
  /** Events whose series would have passed `maxSeries`: not recorded, only counted. */
  dropped = 0;

  constructor(readonly name: string, readonly help: string, readonly labelNames: readonly string[], private readonly maxSeries: number) {}

  protected slot(values: readonly string[]): S | null {
    let node = this.trie;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      let next = node.get(values[i]!) as Trie<S> | undefined;
      if (!next) {
        if (this.series.length >= this.maxSeries) return this.drop();
        node.set(values[i]!, (next = new Map()));
      }
      node = next;
    }
    const leafKey = last >= 0 ? values[last]! : "";
    const found = node.get(leafKey) as Series<S> | undefined;
    if (found) return found.state;
    if (this.series.length >= this.maxSeries) return this.drop();
    const created: Series<S> = { labels: labelText(this.labelNames, values), state: this.create() };
    node.set(leafKey, created);
    this.series.push(created);
    return created.state;
  }

  private drop(): null {
    this.dropped++;
    return null;
  }

  protected abstract create(): S;
  abstract write(w: TextWriter): void;
}

export class CounterFamily extends Family<{ value: number }> {
  constructor(name: string, help: string, labelNames: readonly string[] = [], maxSeries = 2000) {
    super(name, help, labelNames, maxSeries);
  }

  inc(values: readonly string[], by = 1): void {
    const s = this.slot(values);
    if (s) s.value += by;
  }

  protected create() {
    return { value: 0 };
  }

  write(w: TextWriter): void {
    w.family(this.name, "counter", this.help);
    // A family without labels shows 0 before its first event, so rate() has a starting point.
    if (this.labelNames.length === 0 && this.series.length === 0) w.sample(this.name, "", 0);
    for (const { labels, state } of this.series) w.sample(this.name, labels, state.value);
  }
}

interface HistogramState {
  /** Per bucket, not cumulative; the last slot is above every bound (+Inf only). */
  counts: Float64Array;
  sum: number;
  count: number;
}

export class HistogramFamily extends Family<HistogramState> {
  private readonly bounds: readonly number[];
  private readonly leLabels: readonly string[];

  constructor(name: string, help: string, labelNames: readonly string[], bounds: readonly number[], maxSeries = 200) {
    super(name, help, labelNames, maxSeries);
    this.bounds = bounds;
    this.leLabels = [...bounds.map(formatValue), "+Inf"];
  }

  observe(values: readonly string[], v: number): void {
    const s = this.slot(values);
    if (!s) return;
    let i = 0;
    while (i < this.bounds.length && v > this.bounds[i]!) i++;
    s.counts[i]!++;
    s.sum += v;
    s.count++;
  }

  protected create(): HistogramState {
    return { counts: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 };
  }

  write(w: TextWriter): void {
    w.family(this.name, "histogram", this.help);
    const series = [...this.series];
    if (this.labelNames.length === 0 && series.length === 0) series.push({ labels: "", state: this.create() });
    for (const { labels, state } of series) {
      // Buckets are cumulative on the wire: each counts every observation <= its bound.
      const inner = labels ? `${labels.slice(0, -1)},` : "{";
      let cumulative = 0;
      this.leLabels.forEach((le, i) => {
        cumulative += state.counts[i]!;
        w.sample(`${this.name}_bucket`, `${inner}le="${le}"}`, cumulative);
      });
      w.sample(`${this.name}_sum`, labels, state.sum).sample(`${this.name}_count`, labels, state.count);
    }
  }
}
