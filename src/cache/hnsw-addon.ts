// Loads hnswlib-node's native addon by its direct path, which is what lets `bun build --compile`
// embed it in dist/gw (a require through `bindings` is not embedded). The semantic cache's index
// builds on this; `gw doctor` uses it to prove the addon works inside the binary.
import type { HierarchicalNSW as HnswClass } from "hnswlib-node";

interface Addon {
  HierarchicalNSW: typeof HnswClass;
}

let addon: Addon | null = null;

export function loadHnsw(): Addon {
  addon ??= require("hnswlib-node/build/Release/addon.node") as Addon;
  return addon;
}

/** Builds a tiny cosine index and queries it: true when the native addon works on this machine. */
export function hnswSelfCheck(): boolean {
  const { HierarchicalNSW } = loadHnsw();
  const index = new HierarchicalNSW("cosine", 3);
  index.initIndex(4);
  index.addPoint([1, 0, 0], 1);
  index.addPoint([0, 1, 0], 2);
  const found = index.searchKnn([0.9, 0.1, 0], 1);
  return found.neighbors[0] === 1;
}
