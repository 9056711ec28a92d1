// SSO across three gw processes on one PostgreSQL and one Redis (docs/scale-out.md): a client saved on
// instance 0 is used by the others, a sign-in started on 1 is finished on 2 (the pending state is
// Redis's, used once), and its session is valid on 0 until the client is removed on any instance.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMultiGw, type GwInstance, type MultiGw } from "../helpers/multi-gw.ts";
import { startScriptedOidc, type ScriptedOidc } from "../helpers/scripted-oidc.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { json } from "../helpers/expect-json.ts";

let m: MultiGw;
let idp: ScriptedOidc;
beforeAll(async () => {
  idp = await startScriptedOidc();
  m = await startMultiGw(3);
});
afterAll(async () => {
  await m?.stop();
  await idp?.stop();
});

const start = (i: GwInstance, email: string) =>
  fetch(`${i.origin}/dashboard/api/sso/start`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email }) });
const session = (i: GwInstance, cookie: string) => fetch(`${i.origin}/dashboard/api/session`, { headers: { cookie } });
const cookieOf = (res: Response): string => (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
/** The same callback URL, sent to instance `i`. */
const onInstance = (url: string, i: GwInstance): string => {
  const u = new URL(url);
  return `${i.origin}${u.pathname}${u.search}`;
};

test("SSO saved on instance 0, started on 1, finished on 2: the session is valid on 0, the state used once, and removing the client on 1 ends it", async () => {
  const [a, b, c] = m.instances as [GwInstance, GwInstance, GwInstance];
  const { id: project } = await json<{ id: string }>(await m.admin("POST", "/projects", { name: "corp", plan: "business" }), 201);
  const config = { issuer: idp.issuer, client_id: idp.clientId, client_secret: idp.clientSecret, allowed_domains: ["example.com"] };
  const view = await json<Record<string, unknown>>(await m.admin("PUT", `/projects/${project}/sso`, config, 0), 200);
  expect(view).toMatchObject({ object: "project.sso", project_id: project, client_secret_set: true, allowed_domains: ["example.com"] });
  expect(await json(await m.admin("GET", `/projects/${project}/sso`, undefined, 2), 200)).toEqual(view);
  // The domain is this project's on every instance.
  const { id: rival } = await json<{ id: string }>(await m.admin("POST", "/projects", { name: "rival", plan: "business" }, 1), 201);
  const conflict = await json<{ error: { code: string; param: string } }>(await m.admin("PUT", `/projects/${rival}/sso`, config, 1), 409);
  expect(conflict.error).toMatchObject({ code: "conflict", param: "allowed_domains" });

  idp.next = { email: "alice@example.com" };
  const { redirect_url } = await json<{ redirect_url: string }>(await start(b, "alice@example.com"), 200);
  const back = await fetch(redirect_url, { redirect: "manual" });
  const callbackUrl = back.headers.get("location")!;
  expect(callbackUrl.startsWith(`${b.origin}/dashboard/api/sso/callback?`)).toBe(true);
  const callback = await fetch(onInstance(callbackUrl, c), { redirect: "manual" });
  expect(callback.status).toBe(200);
  expect(await callback.text()).toContain(`url=/?project=${project}`);
  const cookie = cookieOf(callback);
  expect(cookie).toStartWith("gw_session=");
  expect(idp.tokenCalls.at(-1)).toEqual({ ok: true, reason: null });

  const signedIn = await json<Record<string, unknown>>(await session(a, cookie), 200);
  expect(signedIn).toMatchObject({ role: "project", project_id: project, key_id: null, email: "alice@example.com", scopes: ["requests", "cache"] });
  // Used once, whichever instance the replay reaches.
  const replay = await fetch(onInstance(callbackUrl, a), { redirect: "manual" });
  expect(replay.status).toBe(302);
  expect(replay.headers.get("location")).toBe("/?sso_error=state");

  await json(await m.admin("DELETE", `/projects/${project}/sso`, undefined, 1), 200);
  await json(await m.admin("GET", `/projects/${project}/sso`, undefined, 0), 404);
  await json(await start(c, "alice@example.com"), 404);
  // Instance 0's copy of the clients follows within its poll; its session check then fails.
  await waitFor(async () => (await session(a, cookie)).status === 401, { timeoutMs: 20_000, what: "the session to end on instance 0" });
});
