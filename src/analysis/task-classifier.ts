// The learned task classifier (docs/routing.md "Task detection"): a linear model over task-features.ts,
// trained by scripts/train-task-classifier.ts into task-model.json, which the binary bundles. Scoring
// reads each feature's weights from an open-addressing table: linear in the features, no allocation.
import type { TaskKind } from "./kinds.ts";
import { CLASSES, DENSE, ID_BITS, newFeatureBuffer, TEXT_KINDS, type FeatureBuffer, type FeatureOptions } from "./task-features.ts";
import model from "./task-model.json" with { type: "json" };

interface ModelFile {
  idBits: number;
  classes: string[];
  options: FeatureOptions;
  dense: number[];
  scale: number;
  /** Feature ids, sorted, as differences from the previous one. */
  ids: number[];
  /** int8 weights, CLASSES per id, base64. */
  weights: string;
}

export interface TaskModel {
  options: FeatureOptions;
  dense: Float64Array;
  /** Open addressing, four ints a slot (one cache line fetch): id + 1 (0 empty), then the feature's
   * int8 weights packed four to an int; times `scale`. */
  table: Int32Array;
  mask: number;
  scale: number;
  features: number;
}

/** Ints per slot of the table: the id and CLASSES int8 weights, four to an int. */
const SLOT = 1 + Math.ceil(CLASSES / 4);

/** Checks the file against the code (classes, sizes) and builds the lookup table. */
export function loadTaskModel(file: ModelFile): TaskModel {
  if (file.idBits !== ID_BITS || file.classes.join() !== TEXT_KINDS.join() || file.dense.length !== DENSE * CLASSES || SLOT !== 4) {
    throw new Error("analysis: task-model.json does not match the classifier's features; run scripts/train-task-classifier.ts --write");
  }
  const q = new Int8Array(Buffer.from(file.weights, "base64"));
  const count = file.ids.length;
  if (q.length !== count * CLASSES) throw new Error("analysis: task-model.json weights are truncated");
  let size = 1;
  while (size < count * 2) size <<= 1;
  const table = new Int32Array(size * SLOT);
  const mask = size - 1;
  let id = 0;
  for (let k = 0; k < count; k++) {
    id += file.ids[k] ?? 0;
    let slot = slotOf(id, mask);
    while (table[slot * SLOT] !== 0) slot = (slot + 1) & mask;
    table[slot * SLOT] = id + 1;
    for (let c = 0; c < CLASSES; c++) {
      const at = slot * SLOT + 1 + (c >> 2);
      table[at] = (table[at] ?? 0) | (((q[k * CLASSES + c] ?? 0) & 0xff) << ((c & 3) * 8));
    }
  }
  return { options: file.options, dense: Float64Array.from(file.dense), table, mask, scale: file.scale, features: count };
}

const slotOf = (id: number, mask: number): number => (Math.imul(id, 0x9e3779b1) >>> 8) & mask;

/** The shipped model, loaded once. */
export const TASK_MODEL: TaskModel = loadTaskModel(model);

const logits = new Float64Array(CLASSES);
const sparse = new Float64Array(CLASSES);

/** The kind with the highest score for the features in `buf`. */
export function classify(m: TaskModel, buf: FeatureBuffer): TaskKind {
  const d = buf.dense;
  for (let c = 0; c < CLASSES; c++) {
    let z = 0;
    for (let j = 0; j < DENSE; j++) z += (d[j] ?? 0) * (m.dense[j * CLASSES + c] ?? 0);
    logits[c] = z;
  }
  const { table, mask } = m;
  sparse.fill(0);
  for (let k = 0; k < buf.n; k++) {
    const key = (buf.ids[k] ?? 0) + 1;
    let at = slotOf(key - 1, mask) * SLOT;
    let probe = table[at] ?? 0;
    while (probe !== 0 && probe !== key) {
      at = (at + SLOT) & (mask * SLOT + SLOT - 1);
      probe = table[at] ?? 0;
    }
    if (probe === 0) continue;
    const v = buf.vals[k] ?? 0;
    for (let c = 0; c < CLASSES; c++) {
      const packed = table[at + 1 + (c >> 2)] ?? 0;
      sparse[c] = (sparse[c] ?? 0) + v * ((packed << (24 - (c & 3) * 8)) >> 24);
    }
  }
  for (let c = 0; c < CLASSES; c++) logits[c] = (logits[c] ?? 0) + m.scale * (sparse[c] ?? 0);
  let best = 0;
  for (let c = 1; c < CLASSES; c++) if ((logits[c] ?? 0) > (logits[best] ?? 0)) best = c;
  return TEXT_KINDS[best] ?? "chat";
}

/** One buffer reused from call to call (the analyzer reads the result at once). */
export const sharedFeatureBuffer: FeatureBuffer = newFeatureBuffer();
