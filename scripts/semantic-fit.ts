// Logistic regression by Newton's method (IRLS) with an L2 penalty on standardised features, and the
// probability cut that reaches a target precision: the pieces of scripts/train-semantic-decision.ts.

import type { SemanticMode } from "../src/cache/semantic-decision.ts";

/** The precision each mode's cut must reach in cross-validation (its one-sigma lower bound). */
export const TARGETS: { readonly [M in SemanticMode]: number } = { conservative: 0.97, balanced: 0.9, aggressive: 0.8 };

export interface Example {
  x: number[];
  y: 0 | 1;
  cosine: number;
  fold: number;
}

export interface Logistic {
  /** Weights and bias over the raw features (the standardisation folded in). */
  weights: number[];
  bias: number;
  predict(x: number[]): number;
}

const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

/** Solves a x = b (Gaussian elimination with partial pivoting); a is small and positive definite here. */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i] as number]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r;
    [m[c], m[p]] = [m[p]!, m[c]!];
    for (let r = c + 1; r < n; r++) {
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = m[r]![n]!;
    for (let k = r + 1; k < n; k++) s -= m[r]![k]! * x[k]!;
    x[r] = s / m[r]![r]!;
  }
  return x;
}

export function fitLogistic(examples: Example[], l2: number, iterations = 30): Logistic {
  const d = examples[0]?.x.length ?? 0;
  const mean = new Array<number>(d).fill(0);
  const scale = new Array<number>(d).fill(0);
  for (const e of examples) e.x.forEach((v, j) => (mean[j]! += v / examples.length));
  for (const e of examples) e.x.forEach((v, j) => (scale[j]! += (v - mean[j]!) ** 2 / examples.length));
  for (let j = 0; j < d; j++) scale[j] = Math.sqrt(scale[j]!) || 1;
  const rows = examples.map((e) => [1, ...e.x.map((v, j) => (v - mean[j]!) / scale[j]!)]);
  let w = new Array<number>(d + 1).fill(0);
  for (let it = 0; it < iterations; it++) {
    const h = Array.from({ length: d + 1 }, (_, i) => new Array<number>(d + 1).fill(0).map((_, j) => (i === j && i > 0 ? l2 : 0)));
    const g = w.map((wi, i) => (i > 0 ? l2 * wi : 0));
    rows.forEach((r, n) => {
      const p = sigmoid(r.reduce((s, v, j) => s + v * w[j]!, 0));
      const err = p - examples[n]!.y;
      const v = Math.max(p * (1 - p), 1e-9);
      for (let i = 0; i <= d; i++) {
        g[i]! += err * r[i]!;
        for (let j = 0; j <= d; j++) h[i]![j]! += v * r[i]! * r[j]!;
      }
    });
    const step = solve(h, g);
    w = w.map((wi, i) => wi - step[i]!);
    if (Math.max(...step.map(Math.abs)) < 1e-10) break;
  }
  const weights = mean.map((_, j) => w[j + 1]! / scale[j]!);
  const bias = w[0]! - mean.reduce((s, m, j) => s + weights[j]! * m, 0);
  return { weights, bias, predict: (x) => sigmoid(x.reduce((s, v, j) => s + v * weights[j]!, bias)) };
}

export interface Cut {
  cut: number;
  precision: number;
  recall: number;
}

/** The lowest cut whose hits (admitted examples with p >= cut) keep the one-sigma lower bound of
 * their precision at or above `target`; recall is correct hits over all `queries`. */
export function pickCut(scored: Array<{ p: number; y: 0 | 1; admitted: boolean }>, target: number, queries: number): Cut {
  const s = scored.filter((e) => e.admitted).sort((a, b) => b.p - a.p);
  let best: Cut = { cut: 1, precision: 1, recall: 0 };
  let correct = 0;
  s.forEach((e, i) => {
    correct += e.y;
    const n = i + 1;
    const precision = correct / n;
    const lower = precision - Math.sqrt((precision * (1 - precision)) / n);
    const next = s[i + 1];
    if (lower >= target && (next === undefined || next.p < e.p)) {
      best = { cut: Math.round(((e.p + (next?.p ?? 0)) / 2) * 1e6) / 1e6, precision, recall: correct / queries };
    }
  });
  return best;
}
