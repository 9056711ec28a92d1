// The dashboard and the audit log across three real gw processes on one PostgreSQL and one Redis
// (docs/scale-out.md "Dashboard and audit log"): sign in on one, use the session on another, sign
// out on it, 401 on the third; an admin write through one is in the audit log read through another.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { json } from "../helpers/expect-json.ts";
import { MULTI_ADMIN_TOKEN, startMultiGw, type MultiGw } from "../helpers/multi-gw.ts";

let m: MultiGw;
beforeAll(async () => {
  m = await startMultiGw(3);
}, 240_000);
afterAll(async () => {
  await m?.stop();
});

const origin = (n: number) => m.instances[n]!.origin;

test("a session opened on one process holds on another; signed out there, the third answers 401", async () => {
  const res = await fetch(`${origin(0)}/dashboard/api/session`, { method: "POST", body: JSON.stringify({ token: MULTI_ADMIN_TOKEN }) });
  const { csrf_token: csrf } = await json<{ csrf_token: string }>(res, 200);
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0]!;
  const headers = { cookie, "x-gw-csrf": csrf };
  expect((await json<{ role: string }>(await fetch(`${origin(1)}/dashboard/api/session`, { headers }), 200)).role).toBe("operator");
  await json(await fetch(`${origin(1)}/dashboard/api/session`, { method: "DELETE", headers }), 200);
  const after = await json<{ error: { code: string } }>(await fetch(`${origin(2)}/dashboard/api/session`, { headers }), 401);
  expect(after.error.code).toBe("invalid_api_key");
});

test("an admin write through one process is in the audit log read through the others", async () => {
  const project = await json<{ id: string }>(await m.admin("POST", "/projects", { name: "audited" }, 0), 201);
  for (const n of [1, 2]) {
    const page = await json<{ data: Array<{ action: string; project_id: string | null; actor: { type: string } }> }>(
      await m.admin("GET", `/audit-log?project_id=${project.id}`, undefined, n), 200);
    expect(page.data.map((e) => e.action)).toEqual(["project.create"]);
    expect(page.data[0]!.actor.type).toBe("admin_token");
  }
  // The sessions' entries of the test before: signed in on 0, out on 1, both listed on 2.
  const all = await json<{ data: Array<{ action: string }> }>(await m.admin("GET", "/audit-log?limit=200", undefined, 2), 200);
  const actions = all.data.map((e) => e.action);
  expect(actions).toContain("session.sign_in");
  expect(actions).toContain("session.sign_out");
});
