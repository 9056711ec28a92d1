// The dashboard sessions' contract (src/store/repos/dashboard-sessions.ts DashboardSessionStore), run
// against SQLite and PostgreSQL: a session written through one handle is read through another
// (another instance), deleted everywhere at once, and expired rows go by their expiry.
import { describe, expect, test } from "bun:test";
import type { DashboardSessionStore, StoredSession } from "../../../src/store/repos/dashboard-sessions.ts";

export interface SessionsHarness {
  store: DashboardSessionStore;
  /** Another instance's store on the same data. */
  other: DashboardSessionStore;
}

let made = 0;
const unique = (what: string) => `${what}_${process.pid}_${++made}_${Math.random().toString(36).slice(2, 8)}`;

const session = (over: Partial<StoredSession> = {}): StoredSession => ({
  tokenHash: unique("hash"), id: unique("dse"), role: "project", projectId: unique("prj"), keyId: unique("key"),
  scopes: ["requests", "cache"], email: null, csrfToken: unique("csrf"), createdAt: 1_000, expiresAt: 50_000, ...over,
});

export function dashboardSessionsContract(name: string, make: () => Promise<SessionsHarness>): void {
  describe(`${name}: dashboard sessions contract`, () => {
    test("a session written on one instance reads the same on another; an unknown hash reads null", async () => {
      const { store, other } = await make();
      const project = session();
      const operator = session({ role: "operator", projectId: null, keyId: "admin:abc", scopes: ["chat", "requests"], email: null });
      const sso = session({ keyId: null, email: "alice@example.com" });
      for (const s of [project, operator, sso]) await store.insert(s);
      expect(await other.get(project.tokenHash)).toEqual(project);
      expect(await other.get(operator.tokenHash)).toEqual(operator);
      expect(await other.get(sso.tokenHash)).toEqual(sso);
      expect(await other.get("nobody")).toBeNull();
    });

    test("a delete on one instance ends the session on the other", async () => {
      const { store, other } = await make();
      const s = session();
      await store.insert(s);
      await other.delete(s.tokenHash);
      expect(await store.get(s.tokenHash)).toBeNull();
      await other.delete(s.tokenHash);
    });

    test("deleteExpired drops exactly the sessions whose expiry has come, and counts them", async () => {
      const { store, other } = await make();
      const base = 10_000_000_000 + made * 1_000;
      await other.deleteExpired(base - 1);
      const gone = [session({ expiresAt: base - 10 }), session({ expiresAt: base })];
      const kept = session({ expiresAt: base + 1 });
      for (const s of [...gone, kept]) await store.insert(s);
      expect(await other.deleteExpired(base)).toBe(2);
      for (const s of gone) expect(await store.get(s.tokenHash)).toBeNull();
      expect(await store.get(kept.tokenHash)).toEqual(kept);
    });

    test("a second session with the same id is refused (ids are unique)", async () => {
      const { store } = await make();
      const s = session();
      await store.insert(s);
      let refused = false;
      try {
        await store.insert({ ...s, tokenHash: unique("hash") });
      } catch {
        refused = true;
      }
      expect(refused).toBe(true);
    });
  });
}
