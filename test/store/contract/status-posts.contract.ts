// The status page's posts contract (docs/monitoring.md "Status posts"), run against SQLite and
// PostgreSQL: a post with its first update, saves with and without an update, pages newest first,
// what the page shows, deletion with its updates.
import { describe, expect, test } from "bun:test";
import type { StatusPostRow, StatusPostsStore } from "../../../src/store/repos/status-posts.ts";

export type MakeStatusPosts = () => StatusPostsStore | Promise<StatusPostsStore>;

export function statusPostsContract(name: string, make: MakeStatusPosts): void {
  describe(`${name}: status posts contract`, () => {
    const post = (id: string, over: Partial<StatusPostRow> = {}): StatusPostRow => ({
      id, kind: "incident", name: `post ${id}`, status: "investigating", impact: "minor", components: ["api"],
      scheduledFor: null, scheduledUntil: null, monitoringAt: null, resolvedAt: null, createdAt: 1000, updatedAt: 1000, ...over,
    });

    test("create, save, updates newest first, page by id, shown, remove", async () => {
      const posts = await make();
      const a = post("spi_0000000000000000000001");
      const b = post("spm_0000000000000000000002", { kind: "maintenance", status: "scheduled", scheduledFor: 2000, scheduledUntil: 9000, components: [] });
      await posts.create(a, { id: "spu_a1", postId: a.id, status: "investigating", body: "looking", createdAt: 1000 });
      await posts.create(b, { id: "spu_b1", postId: b.id, status: "scheduled", body: "planned", createdAt: 1500 });
      expect(await posts.get(a.id)).toEqual(a);
      expect(await posts.get("spi_missing")).toBeNull();

      const resolved = { ...a, status: "resolved", resolvedAt: 3000, updatedAt: 3000, components: ["api", "cache"] };
      await posts.save(resolved, { id: "spu_a2", postId: a.id, status: "resolved", body: "fixed", createdAt: 3000 });
      await posts.save({ ...resolved, name: "renamed" }, null);
      expect(await posts.get(a.id)).toEqual({ ...resolved, name: "renamed" });
      expect((await posts.updates(a.id)).map((u) => [u.id, u.body])).toEqual([["spu_a2", "fixed"], ["spu_a1", "looking"]]);
      const many = await posts.updatesOf([a.id, b.id, "spi_none"]);
      expect(many.get(b.id)?.map((u) => u.id)).toEqual(["spu_b1"]);
      expect(many.get(a.id)).toHaveLength(2);
      expect(many.get("spi_none")).toEqual([]);

      expect((await posts.page(10)).map((p) => p.id)).toEqual([b.id, a.id]);
      expect((await posts.page(1)).map((p) => p.id)).toEqual([b.id]);
      expect((await posts.page(10, b.id)).map((p) => p.id)).toEqual([a.id]);

      expect((await posts.shown(2000, 5000)).map((p) => p.id).sort()).toEqual([a.id, b.id].sort());
      // The incident resolved before `since` and the window over: neither is shown.
      expect(await posts.shown(4000, 9000)).toEqual([]);

      expect(await posts.remove(a.id)).toBe(true);
      expect(await posts.remove(a.id)).toBe(false);
      expect(await posts.get(a.id)).toBeNull();
      expect(await posts.updates(a.id)).toEqual([]);
    });
  });
}
