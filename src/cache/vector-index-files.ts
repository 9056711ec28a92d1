// Persistence of the semantic index in the data directory (gateway-api.md 4.13): one hnswlib file
// per partition plus manifest.json (partition keys, live and deleted labels, a hash of each file).
// Anything missing, corrupt or built for another embedder makes load() answer false, and the caller
// rebuilds the index from its store. Files are hashed before hnswlib reads them: its loader trusts
// the sizes it finds in a file, and a corrupt one could crash the process instead of throwing.
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Partition } from "./vector-partition.ts";
import { loadHnsw } from "./hnsw-addon.ts";
import type { VectorIndex } from "./vector-index.ts";

const VERSION = 1;
const MANIFEST = "manifest.json";

interface ManifestPartition {
  key: string;
  file: string;
  bytes: number;
  hash: string;
  live: number[];
  deleted: number[];
}

interface Manifest {
  version: number;
  tag: string;
  dimensions: number;
  partitions: ManifestPartition[];
}

const hashOf = (bytes: Uint8Array): string => Bun.hash(bytes).toString(16);

/** Writes every partition, then the manifest; files of an earlier save go only once the new
 * manifest is in place, so a crash mid-save leaves the previous save loadable. Blocks while writing. */
export function saveIndex(index: VectorIndex, dir: string, tag: string): void {
  mkdirSync(dir, { recursive: true });
  const generation = Date.now().toString(36);
  const partitions: ManifestPartition[] = [];
  let n = 0;
  for (const [key, p] of index.entries()) {
    const file = `part-${generation}-${n++}.hnsw`;
    p.graph.writeIndexSync(join(dir, file));
    const bytes = Bun.mmap(join(dir, file));
    partitions.push({ key, file, bytes: bytes.byteLength, hash: hashOf(bytes), live: [...p.live], deleted: [...p.deleted] });
  }
  const manifest: Manifest = { version: VERSION, tag, dimensions: index.params.dimensions, partitions };
  const tmp = join(dir, `${MANIFEST}.tmp`);
  writeFileSync(tmp, JSON.stringify(manifest));
  renameSync(tmp, join(dir, MANIFEST));
  const keep = new Set(partitions.map((p) => p.file));
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

function readPartition(index: VectorIndex, dir: string, entry: ManifestPartition): Partition | null {
  const path = join(dir, entry.file);
  if (!existsSync(path) || statSync(path).size !== entry.bytes) return null;
  if (hashOf(Bun.mmap(path)) !== entry.hash) return null;
  const graph = new (loadHnsw().HierarchicalNSW)("cosine", index.params.dimensions);
  graph.readIndexSync(path);
  if (graph.getNumDimensions() !== index.params.dimensions) return null;
  if (graph.getCurrentCount() !== entry.live.length + entry.deleted.length) return null;
  graph.setEf(index.params.efSearch);
  const p = new Partition(index.params, graph);
  for (const id of entry.live) p.live.add(id);
  for (const id of entry.deleted) p.deleted.add(id);
  return p;
}

/** Replaces the index's content with the saved one; false (and an empty index) when it cannot. */
export function loadIndex(index: VectorIndex, dir: string, tag: string): boolean {
  const manifest = readManifest(dir);
  if (manifest === null || manifest.tag !== tag || manifest.dimensions !== index.params.dimensions) {
    index.clear();
    return false;
  }
  const partitions = new Map<string, Partition>();
  try {
    for (const entry of manifest.partitions) {
      const p = readPartition(index, dir, entry);
      if (p === null) {
        index.clear();
        return false;
      }
      partitions.set(entry.key, p);
    }
  } catch {
    index.clear();
    return false;
  }
  index.replaceAll(partitions);
  return true;
}
