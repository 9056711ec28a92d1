// The house rules that a reader cannot check by eye across 270 files (docs/architecture.md
// "Layers"): imports go downward only, no circles, elysia only at the HTTP edge, and comments
// point only at files and docs headings that exist in the repository.
import { describe, expect, test } from "bun:test";
import { checkImports } from "../../scripts/check-imports.ts";
import { checkDocRefs } from "../../scripts/check-doc-refs.ts";
import { checkCommentPaths } from "../../scripts/check-comment-paths.ts";

describe('layers and references (docs/architecture.md "Layers")', () => {
  test("no import circle, no import up a layer, elysia only under http/", async () => {
    const report = await checkImports();
    expect(report.cycles).toEqual([]);
    expect(report.upward).toEqual([]);
    expect(report.elysia).toEqual([]);
    expect(report.unknownDirs).toEqual([]);
  });

  test("every docs heading a source comment cites exists, and none cites the specification's files", async () => {
    const report = await checkDocRefs(undefined, ["src", "test"]);
    expect(report.checked).toBeGreaterThan(100);
    expect(report.missing).toEqual([]);
    expect(report.outside).toEqual([]);
  });

  test("every file a source comment names is in the repository", async () => {
    expect(await checkCommentPaths()).toEqual([]);
  });
});
