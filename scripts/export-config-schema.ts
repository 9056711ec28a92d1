// Writes docs/config.schema.json from the TypeBox schema GW_CONFIG is checked against
// (src/schema/config-file.ts); test/config/config-file.test.ts fails while the file is stale.
import { join } from "node:path";
import { ConfigFileSchema } from "../src/schema/config-file.ts";

export const SCHEMA_PATH = join(import.meta.dir, "../docs/config.schema.json");

export function configSchemaJson(): string {
  return JSON.stringify({ $schema: "https://json-schema.org/draft/2020-12/schema", ...ConfigFileSchema }, null, 2) + "\n";
}

if (import.meta.main) {
  await Bun.write(SCHEMA_PATH, configSchemaJson());
  process.stdout.write(`wrote ${SCHEMA_PATH}\n`);
}
