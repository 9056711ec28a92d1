// Stronger hit deciders tried against the shipped logistic regression (docs/semantic-cache.md
// "Evaluation"): logistic regression over many features by Adam, a one-hidden-layer MLP and boosted
// stumps. Full-batch, seeded, deterministic; only bench/semantic-eval/deciders.ts uses them.
import { seeded } from "./split.ts";

export type Predict = (x: Float64Array) => number;

const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

/** Column means and standard deviations, and the standardised rows. */
export function standardise(rows: Float64Array[]): { mean: Float64Array; scale: Float64Array; z: Float64Array[] } {
  const d = rows[0]?.length ?? 0;
  const mean = new Float64Array(d);
  const scale = new Float64Array(d);
  for (const r of rows) for (let j = 0; j < d; j++) mean[j]! += r[j]! / rows.length;
  for (const r of rows) for (let j = 0; j < d; j++) scale[j]! += (r[j]! - mean[j]!) ** 2 / rows.length;
  for (let j = 0; j < d; j++) scale[j] = Math.sqrt(scale[j]!) || 1;
  const z = rows.map((r) => r.map((v, j) => (v - mean[j]!) / scale[j]!));
  return { mean, scale, z };
}

const std = (x: Float64Array, mean: Float64Array, scale: Float64Array): Float64Array => x.map((v, j) => (v - mean[j]!) / scale[j]!);

/** L2-regularised logistic regression (penalty l2 / n per weight, on standardised features) by Adam. */
export function fitWideLogistic(rows: Float64Array[], y: number[], l2: number, iterations = 400): { predict: Predict; weights: Float64Array; bias: number } {
  const { mean, scale, z } = standardise(rows);
  const d = mean.length;
  const n = rows.length;
  const w = new Float64Array(d + 1);
  const m = new Float64Array(d + 1);
  const s = new Float64Array(d + 1);
  const g = new Float64Array(d + 1);
  const rate = 0.05;
  for (let t = 1; t <= iterations; t++) {
    g.fill(0);
    for (let i = 0; i < n; i++) {
      const r = z[i]!;
      let a = w[d]!;
      for (let j = 0; j < d; j++) a += w[j]! * r[j]!;
      const err = (sigmoid(a) - y[i]!) / n;
      for (let j = 0; j < d; j++) g[j]! += err * r[j]!;
      g[d]! += err;
    }
    for (let j = 0; j < d; j++) g[j]! += (l2 / n) * w[j]!;
    for (let j = 0; j <= d; j++) {
      m[j] = 0.9 * m[j]! + 0.1 * g[j]!;
      s[j] = 0.999 * s[j]! + 0.001 * g[j]! ** 2;
      w[j]! -= (rate * (m[j]! / (1 - 0.9 ** t))) / (Math.sqrt(s[j]! / (1 - 0.999 ** t)) + 1e-8);
    }
  }
  const weights = new Float64Array(d).map((_, j) => w[j]! / scale[j]!);
  let bias = w[d]!;
  for (let j = 0; j < d; j++) bias -= weights[j]! * mean[j]!;
  return {
    weights,
    bias,
    predict: (x) => {
      let a = bias;
      for (let j = 0; j < d; j++) a += weights[j]! * x[j]!;
      return sigmoid(a);
    },
  };
}

/** One hidden layer of `hidden` tanh units, sigmoid output, weight decay, Adam, seeded start. */
export interface Mlp {
  predict: Predict;
  /** Per hidden unit: its weights over the raw features, then its bias. */
  hidden: number[][];
  /** The output's weights over the hidden units, then its bias. */
  output: number[];
}

export function fitMlp(rows: Float64Array[], y: number[], hidden: number, decay: number, iterations = 1500): Mlp {
  const { mean, scale, z } = standardise(rows);
  const d = mean.length;
  const n = rows.length;
  const random = seeded(11);
  const size = hidden * (d + 1) + hidden + 1;
  const p = new Float64Array(size).map(() => (random() - 0.5) * 0.6);
  const m = new Float64Array(size);
  const s = new Float64Array(size);
  const g = new Float64Array(size);
  const h = new Float64Array(hidden);
  const out = hidden * (d + 1);
  const forward = (r: Float64Array): number => {
    let a = p[out + hidden]!;
    for (let k = 0; k < hidden; k++) {
      let u = p[k * (d + 1) + d]!;
      for (let j = 0; j < d; j++) u += p[k * (d + 1) + j]! * r[j]!;
      h[k] = Math.tanh(u);
      a += p[out + k]! * h[k]!;
    }
    return sigmoid(a);
  };
  for (let t = 1; t <= iterations; t++) {
    g.fill(0);
    for (let i = 0; i < n; i++) {
      const r = z[i]!;
      const err = (forward(r) - y[i]!) / n;
      g[out + hidden]! += err;
      for (let k = 0; k < hidden; k++) {
        g[out + k]! += err * h[k]!;
        const back = err * p[out + k]! * (1 - h[k]! ** 2);
        for (let j = 0; j < d; j++) g[k * (d + 1) + j]! += back * r[j]!;
        g[k * (d + 1) + d]! += back;
      }
    }
    for (let j = 0; j < size; j++) {
      const gj = g[j]! + (decay / n) * p[j]!;
      m[j] = 0.9 * m[j]! + 0.1 * gj;
      s[j] = 0.999 * s[j]! + 0.001 * gj ** 2;
      p[j]! -= (0.01 * (m[j]! / (1 - 0.9 ** t))) / (Math.sqrt(s[j]! / (1 - 0.999 ** t)) + 1e-8);
    }
  }
  // The standardisation folded into the hidden layer: rows of raw-feature weights, then the bias.
  const units = Array.from({ length: hidden }, (_, k) => {
    const w = Array.from({ length: d }, (_, j) => p[k * (d + 1) + j]! / scale[j]!);
    return [...w, w.reduce((b, wj, j) => b - wj * mean[j]!, p[k * (d + 1) + d]!)];
  });
  return { predict: (x) => forward(std(x, mean, scale)), hidden: units, output: [...p.subarray(out)] };
}

interface Stump {
  feature: number;
  at: number;
  left: number;
  right: number;
}

/** Gradient-boosted stumps (Newton steps on the log loss), shrinkage `rate`, leaf penalty 1. */
export function fitStumps(rows: Float64Array[], y: number[], rounds: number, rate: number): { predict: Predict } {
  const n = rows.length;
  const d = rows[0]?.length ?? 0;
  const orders = Array.from({ length: d }, (_, j) => [...rows.keys()].sort((a, b) => rows[a]![j]! - rows[b]![j]!));
  const prior = y.reduce((a, b) => a + b, 0) / n;
  const base = Math.log(prior / (1 - prior));
  const f = new Float64Array(n).fill(base);
  const stumps: Stump[] = [];
  const gr = new Float64Array(n);
  const he = new Float64Array(n);
  for (let r = 0; r < rounds; r++) {
    let G = 0;
    let H = 0;
    for (let i = 0; i < n; i++) {
      const q = sigmoid(f[i]!);
      gr[i] = q - y[i]!;
      he[i] = Math.max(q * (1 - q), 1e-6);
      G += gr[i]!;
      H += he[i]!;
    }
    let best: Stump & { gain: number } = { feature: 0, at: Infinity, left: 0, right: 0, gain: 0 };
    for (let j = 0; j < d; j++) {
      const o = orders[j]!;
      let gl = 0;
      let hl = 0;
      for (let k = 0; k < n - 1; k++) {
        const i = o[k]!;
        gl += gr[i]!;
        hl += he[i]!;
        const a = rows[i]![j]!;
        const b = rows[o[k + 1]!]![j]!;
        if (a === b) continue;
        const gain = gl ** 2 / (hl + 1) + (G - gl) ** 2 / (H - hl + 1) - G ** 2 / (H + 1);
        if (gain > best.gain) best = { feature: j, at: (a + b) / 2, left: -gl / (hl + 1), right: -(G - gl) / (H - hl + 1), gain };
      }
    }
    if (best.at === Infinity) break;
    const stump = { feature: best.feature, at: best.at, left: rate * best.left, right: rate * best.right };
    stumps.push(stump);
    for (let i = 0; i < n; i++) f[i]! += rows[i]![stump.feature]! < stump.at ? stump.left : stump.right;
  }
  return {
    predict: (x) => {
      let a = base;
      for (const s of stumps) a += x[s.feature]! < s.at ? s.left : s.right;
      return sigmoid(a);
    },
  };
}
