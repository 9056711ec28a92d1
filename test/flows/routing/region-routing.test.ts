// Region restrictions (issue 5 item 3): a project's policy `regions` admits only models whose
// regions the operator declared (GW_CONFIG catalog overrides) and that intersect the policy;
// a model with no declared region is excluded (fail closed), each with its reason.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { updateProject } from "../../../src/admin/projects.ts";
import modelsFile from "../../../src/routing/models.json" with { type: "json" };
import { post, startTestGw, type TestGw } from "../../helpers/test-gw.ts";

let gw: TestGw;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "gw-regions-"));
  const withRegions = (id: string, regions: string[]) => ({ ...modelsFile.models.find((m) => m.id === id)!, regions });
  const config = join(dir, "gw.json");
  writeFileSync(config, JSON.stringify({ models: [withRegions("mistral/mistral-small-latest", ["eu"]), withRegions("anthropic/claude-haiku-4-5", ["us", "eu"]), withRegions("openai/gpt-4o-mini", ["us"])] }));
  gw = await startTestGw({ GW_CONFIG: config });
});
afterAll(async () => {
  await gw.stop();
  rmSync(dir, { recursive: true, force: true });
});

const projectWithRegions = (regions: string[]) => {
  const id = gw.newProject(`regions-${regions.join("-")}`);
  updateProject(gw.deps.repos.projects, id, { policy: { regions } }, []);
  return gw.key({ projectId: id, scopes: ["chat", "requests"] });
};

describe("policy regions", () => {
  test("only models declared in an allowed region are routed to; the others are excluded with a reason", async () => {
    const key = projectWithRegions(["eu"]);
    const res = await post(`${gw.url}/chat/completions`, key, { messages: [{ role: "user", content: "Bonjour, une question simple." }] });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { model: string; gw: { request_id: string } };
    expect(["mistral/mistral-small-latest", "anthropic/claude-haiku-4-5"]).toContain(body.model);
    await gw.drain();
    const detail = (await (await fetch(`${gw.url}/requests/${body.gw.request_id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { trace: { candidates: Array<{ model: string; rank: number | null; excluded?: string }> } };
    const ranked = detail.trace.candidates.filter((c) => c.rank !== null).map((c) => c.model).sort();
    expect(ranked).toEqual(["anthropic/claude-haiku-4-5", "mistral/mistral-small-latest"]);
    const byModel = new Map(detail.trace.candidates.map((c) => [c.model, c.excluded]));
    expect(byModel.get("openai/gpt-4o-mini")).toBe("region us not in the project's regions");
    expect(byModel.get("google/gemini-2.5-flash")).toBe("region not declared (set `regions` in GW_CONFIG)");
  });

  test("an explicit model outside the regions, or a region nobody serves, answers 503 no_model_available", async () => {
    const eu = projectWithRegions(["eu"]);
    const explicit = await post(`${gw.url}/chat/completions`, eu, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
    expect(explicit.status).toBe(503);
    const none = await post(`${gw.url}/chat/completions`, projectWithRegions(["ap"]), { messages: [{ role: "user", content: "hi" }] });
    expect(none.status).toBe(503);
    const error = ((await none.json()) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("no_model_available");
    // It says why: the most common exclusions, counted.
    expect(error.message).toMatch(/\d+ excluded: region/);
  });
});
