// GW_CONFIG is checked against the published schema (docs/config.md "The file"): unknown keys and
// wrong values are refused with the file, the JSON path and what was expected; a bad file stops
// `gw serve` with that message alone.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { configSchemaJson, SCHEMA_PATH } from "../../scripts/export-config-schema.ts";
import { catalogFromConfig, readConfigFile } from "../../src/deps.ts";
import { ConfigFileError } from "../../src/schema/config-file.ts";

const dir = mkdtempSync(join(tmpdir(), "gw-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function file(content: unknown): string {
  const path = join(dir, `gw-${n++}.json`);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  return path;
}

function errorOf(path: string): string {
  try {
    catalogFromConfig(path);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigFileError);
    return (err as Error).message;
  }
  throw new Error(`${path} was accepted`);
}

describe("the schema", () => {
  test("docs/config.schema.json is what scripts/export-config-schema.ts writes (run it after changing the schema)", () => {
    expect(readFileSync(SCHEMA_PATH, "utf8")).toBe(configSchemaJson());
  });

  test("a file naming the schema, with models and aliases, is accepted", () => {
    const path = file({ $schema: "./config.schema.json", models: [{ id: "openai/gpt-4o-mini", input_price: 0.1 }], aliases: { "my-model": "openai/gpt-4o-mini" } });
    expect(readConfigFile(path).models).toEqual([{ id: "openai/gpt-4o-mini", input_price: 0.1 }]);
  });
});

describe("errors name the file, the path and the expected value", () => {
  test("an unknown top-level key", () => {
    const path = file({ modles: [] });
    expect(errorOf(path)).toBe(`GW_CONFIG ${path}: modles: unknown key (allowed: $schema, models, aliases)`);
  });

  test("an unknown key inside a model entry's capabilities", () => {
    const path = file({ models: [{ id: "openai/gpt-4o", capabilities: { tool: true } }] });
    expect(errorOf(path)).toBe(`GW_CONFIG ${path}: models[0].capabilities.tool: unknown key (allowed: tools, vision, json, reasoning, embeddings)`);
  });

  test("a wrong type, an out-of-range score and a missing id", () => {
    const price = file({ models: [{ id: "openai/gpt-4o", input_price: "cheap" }] });
    expect(errorOf(price)).toBe(`GW_CONFIG ${price}: models[0].input_price: expected number, got "cheap"`);
    const score = file({ models: [{ id: "openai/gpt-4o" }, { id: "openai/gpt-4o-mini", quality: { coding: 1.5 } }] });
    expect(errorOf(score)).toBe(`GW_CONFIG ${score}: models[1].quality.coding: expected number to be less or equal to 1, got 1.5`);
    const cached = file({ models: [{ id: "openai/gpt-4o", cached_input_price: "half" }] });
    expect(errorOf(cached)).toBe(`GW_CONFIG ${cached}: models[0].cached_input_price: expected number or null, got "half"`);
    const noId = file({ models: [{ provider: "ollama" }] });
    expect(errorOf(noId)).toBe(`GW_CONFIG ${noId}: models[0].id: required`);
  });

  test("not JSON, not an object, missing", () => {
    const broken = file('{\n  "models": [\n    { id: "x" }\n  ]\n}');
    // The line and column are gw's own reading (Bun's parser gives none); the detail is Bun's.
    expect(errorOf(broken)).toStartWith(`GW_CONFIG ${broken}: not valid JSON at line 3, column 7 (JSON Parse error: `);
    const trailing = file('{ "aliases": { "a": "gw-auto", } }');
    expect(errorOf(trailing)).toStartWith(`GW_CONFIG ${trailing}: not valid JSON at line 1, column 32 (`);
    const list = file([]);
    expect(errorOf(list)).toBe(`GW_CONFIG ${list}: expected a JSON object at the top level`);
    const missing = join(dir, "nope.json");
    expect(errorOf(missing)).toBe(`GW_CONFIG file not found: ${missing}`);
    expect(errorOf(dir)).toBe(`GW_CONFIG ${dir}: cannot be read (EISDIR)`);
  });
});

describe("gw serve with a bad file", () => {
  // The file is read before the port is bound, so the port given is never used.
  test("exits 1 before listening, printing the message and no stack trace", async () => {
    const path = file({ models: [{ id: "openai/gpt-4o", capabilities: { tool: true } }] });
    const data = join(dir, "data");
    const proc = Bun.spawn(["bun", resolve(import.meta.dir, "../../src/main.ts"), "serve", "--port", "18089", "--data", data], {
      env: { ...process.env, GW_CONFIG: path, GW_ADMIN_TOKEN: "" },
      stdout: "pipe", stderr: "pipe",
    });
    const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    expect({ code, stdout, stderr }).toEqual({
      code: 1, stdout: "",
      stderr: `gw: GW_CONFIG ${path}: models[0].capabilities.tool: unknown key (allowed: tools, vision, json, reasoning, embeddings)\n`,
    });
  });
});

describe("the published schema, read by a JSON Schema validator (Ajv, draft 2020-12)", () => {
  test("accepts what gw accepts (a full catalog as overrides, partial entries, aliases) and refuses unknown keys", async () => {
    const { default: Ajv2020 } = await import("ajv/dist/2020");
    const validate = new Ajv2020({ strict: true, allErrors: false }).compile(JSON.parse(readFileSync(SCHEMA_PATH, "utf8")));
    const { default: models } = await import("../../src/routing/models.json", { with: { type: "json" } });
    expect(validate({ models: models.models })).toBe(true);
    expect(validate({ $schema: "./config.schema.json", models: [{ id: "ollama/x", provider: "ollama" }], aliases: { "gpt-*": "gw-auto" } })).toBe(true);
    expect(validate({ models: [{ id: "openai/gpt-4o", capabilities: { tool: true } }] })).toBe(false);
    expect(validate.errors?.[0]).toMatchObject({ instancePath: "/models/0/capabilities", keyword: "additionalProperties", params: { additionalProperty: "tool" } });
    expect(validate({ modles: [] })).toBe(false);
    expect(validate({ models: [{ id: "openai/gpt-4o", quality: { general: 2 } }] })).toBe(false);
  });
});
