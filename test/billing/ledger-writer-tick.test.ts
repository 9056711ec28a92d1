// The ledger writer's timer writes what was queued before its previous tick: a hold settled within
// a window travels with its charge (never sent alone), one left open is written the window after,
// in queue order with what came before it; flush still writes everything at once.
import { describe, expect, test } from "bun:test";
import { LedgerWriter } from "../../src/billing/ledger-writer.ts";
import type { LedgerEntry, LedgerRepo } from "../../src/store/repos/ledger.ts";

const hold = (requestId: string): LedgerEntry => ({ projectId: "prj_t", kind: "hold", amount: 5, requestId, createdAt: 0 });
const release = (requestId: string): LedgerEntry => ({ projectId: "prj_t", kind: "release", amount: 5, requestId, closesHold: true, createdAt: 0 });

function writer() {
  const batches: LedgerEntry[][] = [];
  const repo = { appendMany: () => {} } as Pick<LedgerRepo, "appendMany"> as LedgerRepo;
  const w = new LedgerWriter(repo, (err) => { throw err; }, { sink: (entries) => void batches.push(entries) });
  return { w, batches };
}

describe("ledger writer timer", () => {
  test("a hold taken within its first window is never sent; one left open is sent a window later, in order", async () => {
    const { w, batches } = writer();
    const a = hold("req_a");
    const b = hold("req_b");
    w.append(a);
    w.append(b);
    // Timers fire in the order they are due: the first tick (due at 25 ms) has run, the second
    // (due 25 ms after it) has not. Nothing written yet; both holds can still go with charges.
    await Bun.sleep(30);
    expect(batches).toEqual([]);
    expect(w.takeHold("req_a")).toBe(a);
    const r = release("req_c");
    w.append(r);
    // The second tick writes what the first one aged (b), not what came after it (r).
    while (batches.length < 1) await Bun.sleep(5);
    expect(batches).toEqual([[b]]);
    expect(w.takeHold("req_b")).toBeNull();
    while (batches.length < 2) await Bun.sleep(5);
    expect(batches).toEqual([[b], [r]]);
    expect(w.pending).toBe(0);
  });

  test("flush writes every entry queued, young ones too, less those taken", () => {
    const { w, batches } = writer();
    w.append(hold("req_1"));
    w.append(hold("req_2"));
    w.takeHold("req_1");
    w.flush();
    expect(batches.map((b) => b.map((e) => e.requestId))).toEqual([["req_2"]]);
    expect(w.pending).toBe(0);
  });
});
