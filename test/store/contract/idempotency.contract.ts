// The idempotency store's contract (docs/idempotency.md), run against every implementation: one of
// two claimers at once wins, the other reads "running"; a finished result replays byte for byte; only
// the claim's own request finishes or releases it.
import { describe, expect, test } from "bun:test";
import type { IdempotencyStore } from "../../../src/store/idempotency-store.ts";

/** A fresh store on its own keys; `now` is the epoch ms the claims are made at. */
export type MakeIdempotencyStore = (now: number) => IdempotencyStore | Promise<IdempotencyStore>;

const HOUR = 3_600_000;
let seq = 0;

export function idempotencyContract(name: string, make: MakeIdempotencyStore): void {
  describe(`${name}: idempotency store contract`, () => {
    const now = Date.now();
    const claimOf = (requestId: string, key: string, fingerprint = "fp-1") => ({ projectId: "prj_1", key, fingerprint, requestId, now, expiresAt: now + HOUR });

    test("two claimers at once: exactly one wins, the other sees the winner's running claim", async () => {
      const store = await make(now);
      const key = `k-${++seq}`;
      const won = await Promise.all([store.claim(claimOf("req_a", key)), store.claim(claimOf("req_b", key))]);
      expect(won.filter(Boolean).length).toBe(1);
      const winner = won[0] ? "req_a" : "req_b";
      const seen = await store.get("prj_1", key);
      expect([seen?.state, seen?.requestId, seen?.fingerprint, seen?.expiresAt]).toEqual(["running", winner, "fp-1", now + HOUR]);
      expect(await store.claim(claimOf("req_c", key))).toBe(false);
    });

    test("a finished result replays byte for byte; a stranger cannot finish or release it", async () => {
      const store = await make(now);
      const key = `k-${++seq}`;
      expect(await store.claim(claimOf("req_a", key))).toBe(true);
      const body = new Uint8Array([0, 1, 2, 250, 255, ...new TextEncoder().encode('{"id":"chatcmpl-1","é":"ü"}')]);
      const result = { state: "stored" as const, status: 200, headers: { "content-type": "application/json", "x-gw-request-id": "req_a" }, body, expiresAt: now + 2 * HOUR };
      expect(await store.finish("prj_1", key, "req_b", result)).toBe(false);
      expect(await store.release("prj_1", key, "req_b")).toBe(false);
      expect(await store.finish("prj_1", key, "req_a", result)).toBe(true);
      const stored = await store.get("prj_1", key);
      expect([stored?.state, stored?.status, stored?.headers, stored?.requestId, stored?.fingerprint, stored?.createdAt, stored?.expiresAt])
        .toEqual(["stored", 200, result.headers, "req_a", "fp-1", now, now + 2 * HOUR]);
      expect(stored?.body).toEqual(body);
      // Finished: no second finish, no release, no new claim.
      expect(await store.finish("prj_1", key, "req_a", result)).toBe(false);
      expect(await store.release("prj_1", key, "req_a")).toBe(false);
      expect(await store.claim(claimOf("req_c", key))).toBe(false);
    });

    test("a released claim lets the retry run; not kept keeps the fingerprint and status only", async () => {
      const store = await make(now);
      const key = `k-${++seq}`;
      await store.claim(claimOf("req_a", key));
      expect(await store.release("prj_1", key, "req_a")).toBe(true);
      expect(await store.get("prj_1", key)).toBeNull();
      expect(await store.claim(claimOf("req_b", key, "fp-2"))).toBe(true);
      expect(await store.finish("prj_1", key, "req_b", { state: "not_kept", status: 200, headers: null, body: null, expiresAt: now + HOUR })).toBe(true);
      const row = await store.get("prj_1", key);
      expect([row?.state, row?.status, row?.headers, row?.body, row?.fingerprint]).toEqual(["not_kept", 200, null, null, "fp-2"]);
    });

    test("keys are per project", async () => {
      const store = await make(now);
      const key = `k-${++seq}`;
      expect(await store.claim(claimOf("req_a", key))).toBe(true);
      expect(await store.claim({ ...claimOf("req_b", key), projectId: "prj_2" })).toBe(true);
      expect((await store.get("prj_2", key))?.requestId).toBe("req_b");
    });
  });
}
