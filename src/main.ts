// Entry point of `bun run src/main.ts` and of the compiled `dist/gw`.
import { runCli } from "./cli.ts";

const code = runCli(process.argv.slice(2));
if (code >= 0) process.exit(code);
