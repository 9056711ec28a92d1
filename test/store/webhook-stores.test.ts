// The webhook stores' contract against SQLite's (src/store/repos/webhook-stores.ts).
import { afterAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/store/db.ts";
import { sqliteWebhookStores } from "../../src/store/repos/webhook-stores.ts";
import { webhookContract } from "./contract/webhook.contract.ts";

const dir = mkdtempSync(join(tmpdir(), "gw-webhooks-"));
const db = openDatabase(dir);
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

webhookContract("sqlite", () => sqliteWebhookStores(db));
