// The ratings store's contract against the single-node implementation: the feedback repo on a SQLite
// data directory; a second handle on the same file stands for another process.
import { afterAll } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/store/db.ts";
import { feedbackRepo, sqliteFeedbackStore } from "../../src/store/repos/feedback.ts";
import { type FeedbackHarness, feedbackContract } from "./contract/feedback.contract.ts";

const opened: Array<{ dbs: Database[]; dir: string }> = [];
afterAll(() => {
  for (const o of opened) {
    for (const db of o.dbs) db.close();
    rmSync(o.dir, { recursive: true, force: true });
  }
});

async function make(): Promise<FeedbackHarness> {
  const dir = mkdtempSync(join(tmpdir(), "gw-feedback-"));
  const entry = { dbs: [openDatabase(dir)], dir };
  opened.push(entry);
  return {
    store: sqliteFeedbackStore(feedbackRepo(entry.dbs[0]!)),
    fresh() {
      const db = openDatabase(dir);
      entry.dbs.push(db);
      return sqliteFeedbackStore(feedbackRepo(db));
    },
  };
}

feedbackContract("sqlite", make);
