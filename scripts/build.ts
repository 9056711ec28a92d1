// Builds dist/gw: one self-contained executable (bun build --compile) that runs from any directory.
import { $ } from "bun";
import { mkdirSync, statSync } from "node:fs";

mkdirSync("dist", { recursive: true });
// The dashboard bundle first: the binary embeds src/dashboard/generated-assets.ts.
await $`bun run scripts/build-dashboard.ts`;
// Workers are extra entry points: a compiled binary only embeds workers named here (the log writer,
// the semantic cache's USE-lite embedder, which brings its model files in with it, and the token engine).
await $`bun build --compile --minify-whitespace --minify-syntax --sourcemap=none src/main.ts src/store/log-worker.ts src/cache/embedder/use-worker.ts src/optimization/worker.ts --outfile dist/gw`;
const size = statSync("dist/gw").size;
console.log(`dist/gw: ${(size / 1024 / 1024).toFixed(1)} MiB`);
