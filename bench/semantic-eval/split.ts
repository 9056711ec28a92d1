// The QQP dev split carved in two by question groups (issue 22 item 6): connected components of the
// graph whose edges are the labelled pairs, so no question is on both sides; a seeded shuffle of
// the groups fills the holdout to about 27% of the pairs. Code only: the data stays in ../shared.
export { prng as seeded } from "../lib/prng.ts";
import { prng as seeded } from "../lib/prng.ts";

export interface QqpPair {
  text_a: string;
  text_b: string;
  label: number;
}

export const HOLDOUT_SEED = 22;
export const HOLDOUT_SHARE = 0.27;


/** Question groups: one number per pair, equal for pairs that share a question (directly or through others). */
export function groupsOf(pairs: QqpPair[]): number[] {
  const ids = new Map<string, number>();
  const parent: number[] = [];
  const id = (t: string): number => {
    let n = ids.get(t);
    if (n === undefined) ids.set(t, (n = parent.push(parent.length) - 1));
    return n;
  };
  const find = (n: number): number => {
    while (parent[n] !== n) {
      const up = parent[parent[n] as number] as number;
      parent[n] = up;
      n = up;
    }
    return n;
  };
  for (const p of pairs) {
    const a = find(id(p.text_a));
    const b = find(id(p.text_b));
    if (a !== b) parent[Math.max(a, b)] = Math.min(a, b);
  }
  return pairs.map((p) => find(id(p.text_a)));
}

export interface Split {
  dev: QqpPair[];
  holdout: QqpPair[];
  groups: { dev: number; holdout: number };
}

/** Deterministic: the groups in a seeded order go to the holdout until it holds `share` of the pairs;
 * a group that would overshoot by more than 1% of the pairs is skipped (the largest group stays in dev). */
export function splitByGroups(pairs: QqpPair[], seed = HOLDOUT_SEED, share = HOLDOUT_SHARE): Split {
  const group = groupsOf(pairs);
  const sizes = new Map<number, number>();
  for (const g of group) sizes.set(g, (sizes.get(g) ?? 0) + 1);
  const order = [...sizes.keys()].sort((a, b) => a - b);
  const random = seeded(seed);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  const want = Math.round(share * pairs.length);
  const slack = Math.ceil(0.01 * pairs.length);
  const held = new Set<number>();
  let n = 0;
  for (const g of order) {
    if (n >= want) break;
    const size = sizes.get(g) ?? 0;
    if (n + size > want + slack) continue;
    held.add(g);
    n += size;
  }
  const dev: QqpPair[] = [];
  const holdout: QqpPair[] = [];
  pairs.forEach((p, i) => (held.has(group[i] as number) ? holdout : dev).push(p));
  return { dev, holdout, groups: { dev: sizes.size - held.size, holdout: held.size } };
}
