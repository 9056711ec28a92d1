// Proves the USE-lite embedder works inside a `bun build --compile` binary run from an empty
// directory with no node_modules anywhere above it (issue 7 item 4): compiles
// src/cache/embedder/binary-check.ts with the same worker entries and root as dist/gw, copies the
// binary alone into a fresh temp directory, runs it there and checks it prints a 512-dim unit vector.
// Usage: bun run scripts/check-embedder-binary.ts
import { $ } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const started = performance.now();
const buildDir = mkdtempSync(join(tmpdir(), "gw-embed-build-"));
const runDir = mkdtempSync(join(tmpdir(), "gw-embed-run-"));
try {
  const binary = join(buildDir, "embed-check");
  // Same worker entries as scripts/build.ts, so the bundle root (src/) and worker paths match dist/gw.
  await $`bun build --compile --minify-whitespace --minify-syntax --sourcemap=none src/cache/embedder/binary-check.ts src/cache/embedder/use-worker.ts src/store/log-worker.ts --outfile ${binary}`.quiet();
  const builtMs = performance.now() - started;
  await $`cp ${binary} ${runDir}/`;
  const ranAt = performance.now();
  const out = await $`./embed-check`.cwd(runDir).env({ PATH: "/usr/bin:/bin" }).text();
  const runMs = performance.now() - ranAt;
  const result = JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as { dimensions?: number; norm?: number };
  const ok = result.dimensions === 512 && typeof result.norm === "number" && Math.abs(result.norm - 1) < 1e-3;
  console.log(out.trim());
  console.log(`build ${(builtMs / 1000).toFixed(1)} s, run ${(runMs / 1000).toFixed(2)} s, total ${((performance.now() - started) / 1000).toFixed(1)} s: ${ok ? "ok" : "FAILED"}`);
  if (!ok) process.exit(1);
} finally {
  rmSync(buildDir, { recursive: true, force: true });
  rmSync(runDir, { recursive: true, force: true });
}
