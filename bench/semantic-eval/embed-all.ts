// Embeds every text of an evaluation once, spread over one or more embedders (USE-lite: one worker
// each, so two use both cores), with a cache in the system temp directory keyed by embedder and
// texts, outside the repository, so a second run skips the model.
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Embedder } from "../../src/cache/embedder/types.ts";

const CHUNK = 8;

export async function embedAll(embedders: Embedder[], texts: string[], useCache = true): Promise<Map<string, Float32Array>> {
  const first = embedders[0];
  if (first === undefined) throw new Error("no embedder");
  const dims = first.dimensions;
  const dir = join(tmpdir(), "gw-semantic-eval");
  const file = join(dir, `${first.name}-${Bun.hash(texts.join("\u0000")).toString(16)}.f32`);
  const out = new Map<string, Float32Array>();
  if (useCache && (await Bun.file(file).exists())) {
    const all = new Float32Array(await Bun.file(file).arrayBuffer());
    if (all.length === texts.length * dims) {
      texts.forEach((t, i) => out.set(t, all.subarray(i * dims, (i + 1) * dims)));
      return out;
    }
  }
  const all = new Float32Array(texts.length * dims);
  let next = 0;
  let done = 0;
  const started = performance.now();
  // Each embedder takes the next chunk when it is free.
  await Promise.all(
    embedders.map(async (e) => {
      while (next < texts.length) {
        const from = next;
        next += CHUNK;
        const vectors = await e.embed(texts.slice(from, from + CHUNK));
        vectors.forEach((v, i) => all.set(v, (from + i) * dims));
        done += vectors.length;
        if (done % 2000 < CHUNK) process.stderr.write(`  embedded ${done}/${texts.length} in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
      }
    }),
  );
  texts.forEach((t, i) => out.set(t, all.subarray(i * dims, (i + 1) * dims)));
  if (useCache) {
    mkdirSync(dir, { recursive: true });
    await Bun.write(file, all);
  }
  return out;
}
