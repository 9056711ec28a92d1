// The ratings store on a real PostgreSQL (src/store/postgres/feedback.ts, migration 011): the
// contract, the sums the trigger keeps for rows written any way, and the follower that brings every
// instance's ratings into another instance's quality sums.
import { describe, expect, test } from "bun:test";
import { openPostgres, type Postgres, StoreUnavailable } from "../../../src/store/postgres/connect.ts";
import { postgresInvoiceLedger } from "../../../src/store/postgres/invoices.ts";
import { postgresSsoStore } from "../../../src/store/postgres/sso.ts";
import { followFeedbackSums, postgresFeedbackStore } from "../../../src/store/postgres/feedback.ts";
import { buildCatalog } from "../../../src/routing/catalog.ts";
import { FeedbackQuality } from "../../../src/routing/feedback-quality.ts";
import { migratedPostgresForFile } from "../../helpers/migrated-postgres.ts";
import type { PostgresService } from "../../helpers/services.ts";
import { waitFor } from "../../helpers/wait-for.ts";
import { feedbackContract } from "../contract/feedback.contract.ts";

let service: PostgresService;
let pg: Postgres;
const others: Postgres[] = [];
migratedPostgresForFile({ max: 4, timeoutMs: 10_000 }, (s, p) => {
  service = s;
  pg = p;
});

function otherPool(): Postgres {
  const p = openPostgres(service.url, { max: 2, timeoutMs: 10_000 });
  others.push(p);
  return p;
}

feedbackContract("postgres", async () => ({ store: postgresFeedbackStore(pg), fresh: () => postgresFeedbackStore(otherPool()) }));

const MODEL = "openai/gpt-4o-mini";
const model = buildCatalog().get(MODEL)!;
const input = (projectId: string, requestId: string, rating: number) => ({
  projectId, requestId, modelId: MODEL, task: "translation", test: false, counted: true, rating, now: Date.now(),
});

describe("postgres feedback sums", () => {
  test("a rating answers its key's sums after it, numbered; rows inserted directly (a copy) count too", async () => {
    const store = postgresFeedbackStore(pg);
    const first = await store.rate(input("prj_sums", "req_1", 2));
    expect(first).toEqual({ previous: null, sums: { projectId: "prj_sums", test: false, modelId: MODEL, task: "translation", ratingSum: 2, count: 1, seq: expect.any(Number) } });
    const second = await store.rate(input("prj_sums", "req_1", 5));
    expect(second.previous).toBe(2);
    expect(second.sums).toMatchObject({ ratingSum: 5, count: 1 });
    expect(second.sums!.seq).toBeGreaterThan(first.sums!.seq);
    // Not counted: stored, no sums.
    expect(await store.rate({ ...input("prj_sums", "req_2", 1), counted: false })).toEqual({ previous: null, sums: null });
    // As `gw migrate-to-postgres` copies rows: the trigger adds them.
    await pg.sql`INSERT INTO feedback (project_id, request_id, model_id, task, test, counted, rating, created_at, updated_at)
      VALUES ('prj_sums', 'req_3', ${MODEL}, 'translation', false, true, 3, 1, 1)`;
    expect((await store.aggregates()).filter((a) => a.projectId === "prj_sums")).toEqual([
      { projectId: "prj_sums", modelId: MODEL, task: "translation", test: false, ratingSum: 8, count: 2 },
    ]);
  });

  test("the follower brings ratings made through another pool into a quality, and an older figure never undoes a newer one", async () => {
    const quality = new FeedbackQuality();
    const errors: unknown[] = [];
    const follower = followFeedbackSums(postgresFeedbackStore(pg), (s) => quality.set(s), { intervalMs: 50, onError: (err) => errors.push(err) });
    try {
      const elsewhere = postgresFeedbackStore(otherPool());
      for (let i = 0; i < 4; i++) await elsewhere.rate(input("prj_follow", `req_${i}`, 1));
      await waitFor(() => quality.ratings(MODEL, "translation", false, "prj_follow") === 4, { timeoutMs: 20_000, what: "4 ratings followed" });
      const low = quality.quality(model, "translation", false, "prj_follow");
      expect(low).toBeLessThan(model.quality.translation!);
      const changed = await elsewhere.rate(input("prj_follow", "req_0", 5));
      await follower.caughtUp();
      expect(quality.ratings(MODEL, "translation", false, "prj_follow")).toBe(4);
      const seen = quality.quality(model, "translation", false, "prj_follow");
      expect(seen).toBeGreaterThan(low);
      // An older figure (a late read) is ignored.
      quality.set({ ...changed.sums!, ratingSum: 4, seq: changed.sums!.seq - 1 });
      expect(quality.quality(model, "translation", false, "prj_follow")).toBe(seen);
      expect(errors).toEqual([]);
    } finally {
      follower.stop();
      await Promise.all(others.map((p) => p.close()));
    }
  });
});

describe("PostgreSQL out of reach", () => {
  test("ratings, SSO clients and invoice sums fail as StoreUnavailable within the bound (the routes answer 503)", async () => {
    // Nothing listens on port 1.
    const gone = openPostgres("postgres://gw:secret@127.0.0.1:1/gw", { max: 1, timeoutMs: 500 });
    try {
      const calls: Array<Promise<unknown>> = [
        postgresFeedbackStore(gone).rate(input("prj_gone", "req_gone", 3)),
        postgresSsoStore(gone).findByDomain("example.com"),
        postgresInvoiceLedger(gone).monthSums("prj_gone", 0, 1),
      ];
      for (const call of calls) expect(await call.then(() => null, (err: unknown) => err)).toBeInstanceOf(StoreUnavailable);
    } finally {
      await gone.close();
    }
  });
});
