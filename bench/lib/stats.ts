// Small numeric and markdown helpers shared by the scenarios: medians, percentiles, table rows.

export const median = (xs: readonly number[]): number => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

/** Nearest-rank percentile of an already sorted array (p in 0..100). */
export const percentileSorted = (sorted: readonly number[], p: number): number => {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] as number;
};

export interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
}

export const percentiles = (xs: readonly number[]): Percentiles => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: percentileSorted(s, 50), p95: percentileSorted(s, 95), p99: percentileSorted(s, 99) };
};

/** Fixed decimals, or "n/a" for NaN/undefined. */
export const fmt = (x: number | undefined, digits = 2): string =>
  x === undefined || !Number.isFinite(x) ? "n/a" : x.toFixed(digits);

export const ratio = (a: number, b: number): string => (Number.isFinite(a / b) ? `${(a / b).toFixed(2)}x` : "n/a");

/** A markdown table; the first `textColumns` columns are left-aligned, the others right-aligned. */
export function table(header: string[], rows: string[][], textColumns = 1): string[] {
  return [
    `| ${header.join(" | ")} |`,
    `|${header.map((_, i) => (i < textColumns ? "---" : "---:")).join("|")}|`,
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ];
}

export const envNumber = (name: string, fallback: number): number => {
  const v = process.env[name];
  if (v === undefined || v === "") return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got '${v}'`);
  return n;
};
