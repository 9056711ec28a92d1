// The bypass corpus against the guard itself (fast; the same corpus runs through the real server
// in test/security/guard-bypass.test.ts): every case blocked under `block`, none readable after `redact`.
import { describe, expect, test } from "bun:test";
import { guardTexts } from "../../src/guard/content-guard.ts";
import { mapChatTexts } from "../../src/guard/request-texts.ts";
import type { ChatRequest } from "../../src/canonical/chat.ts";
import { bypassCorpus } from "../fixtures/guard-bypass.ts";
import { leaks } from "./leak.ts";

const CORPUS = bypassCorpus();

describe("the guard bypass corpus", () => {
  test("has at least 200 cases in several scripts, and the check sees every raw case", () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(200);
    expect(new Set(CORPUS.map((c) => c.name.split(" in ")[1]!.split(",")[0])).size).toBeGreaterThanOrEqual(10);
    // A test that cannot fail is a defect: unguarded, every case is readable.
    const unseen = CORPUS.filter((c) => !leaks(c.body, c.canonical)).map((c) => c.name);
    expect(unseen).toEqual([]);
  });

  test("block: no case passes", () => {
    const passed = CORPUS.filter((c) => {
      const req = structuredClone(c.body) as ChatRequest;
      const report = guardTexts({ pii: "block", secrets: "block" }, (map) => mapChatTexts(req, map));
      return report?.action !== "blocked";
    }).map((c) => c.name);
    expect(passed).toEqual([]);
  });

  test("redact: no value can be read in what would be sent", () => {
    const leaked = CORPUS.filter((c) => {
      const req = structuredClone(c.body) as ChatRequest;
      guardTexts({ pii: "redact", secrets: "redact" }, (map) => mapChatTexts(req, map));
      return leaks(req, c.canonical);
    }).map((c) => c.name);
    expect(leaked).toEqual([]);
  });
});
