// Persistence of the semantic index (docs/semantic-cache.md "Persistence and restarts"). Files are
// hashed before they are read: hnswlib's loader trusts the sizes it finds in a file, and a corrupt
// one could crash the process instead of throwing.
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FlatPartition } from "./vector-flat.ts";
import { Partition, type HnswParams } from "./vector-partition.ts";
import { loadHnsw } from "./hnsw-addon.ts";

/** One partition with its owner and the bytes last counted for it. */
export interface Slot {
  project: string;
  part: FlatPartition | Partition;
  bytes: number;
  promoting?: boolean;
  /** Evicted or emptied: late rebuilds and promotions leave the counts alone. */
  dropped?: boolean;
}

/** What saving and loading need of the index (VectorIndex): its partitions, replaced whole on load. */
export interface StoredIndex {
  readonly params: HnswParams;
  readonly watermark: number;
  entries(): IterableIterator<[string, Slot]>;
  clear(): void;
  replaceAll(slots: Map<string, Slot>, watermark: number): void;
}

const VERSION = 2;
const MANIFEST = "manifest.json";

interface FileRef {
  file: string;
  bytes: number;
  hash: string;
}

type ManifestPartition =
  | { kind: "flat"; key: string; project: string; ids: number[]; offset: number }
  | ({ kind: "graph"; key: string; project: string; live: number[]; deleted: number[] } & FileRef);

interface Manifest {
  version: number;
  tag: string;
  dimensions: number;
  watermark: number;
  /** The packed flat vectors (float32, little-endian), null when there are none. */
  flat: FileRef | null;
  partitions: ManifestPartition[];
}

const hashOf = (bytes: Uint8Array): string => Bun.hash(bytes).toString(16);

/** Writes every partition, then the manifest; files of an earlier save go only once the new
 * manifest is in place, so a crash mid-save leaves the previous save loadable. Blocks while writing. */
export function saveIndex(index: StoredIndex, dir: string, tag: string, watermark = index.watermark): void {
  mkdirSync(dir, { recursive: true });
  const generation = Date.now().toString(36);
  const partitions: ManifestPartition[] = [];
  const chunks: Float32Array[] = [];
  let offset = 0;
  let n = 0;
  for (const [key, { project, part }] of index.entries()) {
    if (part instanceof FlatPartition) {
      const { ids, vectors } = part.packed();
      partitions.push({ kind: "flat", key, project, ids, offset });
      chunks.push(vectors);
      offset += vectors.length;
      continue;
    }
    const file = `part-${generation}-${n++}.hnsw`;
    part.graph.writeIndexSync(join(dir, file));
    const bytes = Bun.mmap(join(dir, file));
    partitions.push({ kind: "graph", key, project, file, bytes: bytes.byteLength, hash: hashOf(bytes), live: [...part.live], deleted: [...part.deleted] });
  }
  let flat: FileRef | null = null;
  if (offset > 0) {
    const packed = new Float32Array(offset);
    let at = 0;
    for (const c of chunks) {
      packed.set(c, at);
      at += c.length;
    }
    const bytes = new Uint8Array(packed.buffer);
    flat = { file: `part-${generation}-flat.f32`, bytes: bytes.byteLength, hash: hashOf(bytes) };
    writeFileSync(join(dir, flat.file), bytes);
  }
  const manifest: Manifest = { version: VERSION, tag, dimensions: index.params.dimensions, watermark: Math.max(0, watermark), flat, partitions };
  const tmp = join(dir, `${MANIFEST}.tmp`);
  writeFileSync(tmp, JSON.stringify(manifest));
  renameSync(tmp, join(dir, MANIFEST));
  const keep = new Set([...partitions.flatMap((p) => (p.kind === "graph" ? [p.file] : [])), ...(flat ? [flat.file] : [])]);
  for (const name of readdirSync(dir)) if (name.startsWith("part-") && !keep.has(name)) rmSync(join(dir, name), { force: true });
}

function readManifest(dir: string): Manifest | null {
  const path = join(dir, MANIFEST);
  if (!existsSync(path)) return null;
  try {
    const m = JSON.parse(readFileSync(path, "utf8")) as Manifest;
    return m.version === VERSION && Array.isArray(m.partitions) ? m : null;
  } catch {
    return null;
  }
}

/** The file's bytes when it is there whole, else null. */
function readChecked(dir: string, ref: FileRef): Uint8Array | null {
  const path = join(dir, ref.file);
  if (!existsSync(path) || statSync(path).size !== ref.bytes) return null;
  const bytes = new Uint8Array(readFileSync(path));
  return hashOf(bytes) === ref.hash ? bytes : null;
}

function readGraph(index: StoredIndex, dir: string, entry: Extract<ManifestPartition, { kind: "graph" }>): Partition | null {
  if (readChecked(dir, entry) === null) return null;
  const graph = new (loadHnsw().HierarchicalNSW)("cosine", index.params.dimensions);
  graph.readIndexSync(join(dir, entry.file));
  if (graph.getNumDimensions() !== index.params.dimensions) return null;
  if (graph.getCurrentCount() !== entry.live.length + entry.deleted.length) return null;
  graph.setEf(index.params.efSearch);
  const p = new Partition(index.params, graph);
  for (const id of entry.live) p.live.add(id);
  for (const id of entry.deleted) p.deleted.add(id);
  return p;
}

function readSlots(index: StoredIndex, dir: string, manifest: Manifest): Map<string, Slot> | null {
  const dims = index.params.dimensions;
  let flat: Float32Array | null = null;
  if (manifest.flat !== null) {
    const bytes = readChecked(dir, manifest.flat);
    if (bytes === null || bytes.byteLength % 4 !== 0) return null;
    flat = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  }
  const slots = new Map<string, Slot>();
  for (const entry of manifest.partitions) {
    let part: FlatPartition | Partition | null;
    if (entry.kind === "flat") {
      const end = entry.offset + entry.ids.length * dims;
      if (flat === null || entry.offset < 0 || end > flat.length) return null;
      part = FlatPartition.fromPacked(dims, entry.ids, flat.subarray(entry.offset, end));
    } else {
      part = readGraph(index, dir, entry);
    }
    if (part === null) return null;
    slots.set(entry.key, { project: entry.project, part, bytes: 0 });
  }
  return slots;
}

/** Replaces the index's content with the saved one; false (and an empty index) when it cannot. */
export function loadIndex(index: StoredIndex, dir: string, tag: string): boolean {
  const manifest = readManifest(dir);
  let slots: Map<string, Slot> | null = null;
  if (manifest !== null && manifest.tag === tag && manifest.dimensions === index.params.dimensions) {
    try {
      slots = readSlots(index, dir, manifest);
    } catch {
      slots = null;
    }
  }
  if (slots === null || manifest === null) {
    index.clear();
    return false;
  }
  index.replaceAll(slots, typeof manifest.watermark === "number" ? manifest.watermark : 0);
  return true;
}
