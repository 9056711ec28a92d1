// SSO against a scripted OIDC provider (docs/dashboard.md "Single sign-on (OIDC)"): the admin
// config (plan business, sealed secret), the code flow with PKCE to a project session, and each way
// it must fail: wrong domain, bad PKCE, wrong nonce or audience, expired or foreign-signed token.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/lib/clock.ts";
import { admin, expectError, ok } from "../helpers/admin-api.ts";
import { startScriptedOidc, type ScriptedOidc } from "../helpers/scripted-oidc.ts";
import { startTestGw, type TestGw } from "../helpers/test-gw.ts";

const origin = (gw: TestGw) => gw.url.replace(/\/v1$/, "");

function start(gw: TestGw, email: string): Promise<Response> {
  return fetch(`${origin(gw)}/dashboard/api/sso/start`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email }) });
}

/** Start, the provider's redirect back, and gw's callback: the callback's answer. */
async function signInVia(gw: TestGw, email: string): Promise<{ callback: Response; callbackUrl: string }> {
  const { redirect_url } = (await ok(await start(gw, email))) as { redirect_url: string };
  const back = await fetch(redirect_url, { redirect: "manual" });
  const callbackUrl = back.headers.get("location") ?? "";
  return { callback: await fetch(callbackUrl, { redirect: "manual" }), callbackUrl };
}

const cookieOf = (res: Response): string => (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";

describe("SSO (OIDC)", () => {
  let gw: TestGw;
  let idp: ScriptedOidc;
  let projectId: string;
  const clock = new ManualClock();
  beforeAll(async () => {
    gw = await startTestGw({}, { clock });
    idp = await startScriptedOidc({ now: () => clock.now() });
    projectId = String((await ok(await admin(gw, "POST", "/projects", { name: "corp", plan: "pro" }), 201)).id);
  });
  afterAll(async () => {
    await idp.stop();
    await gw.stop();
  });
  const config = () => ({ issuer: idp.issuer, client_id: idp.clientId, client_secret: idp.clientSecret, allowed_domains: ["Example.com"] });

  test("admin config: plan business only; the secret is sealed and never shown; one project per domain", async () => {
    const denied = await expectError(await admin(gw, "PUT", `/projects/${projectId}/sso`, config()), 403, "permission_denied");
    expect(denied.message).toBe("SSO needs plan business.");
    await ok(await admin(gw, "PATCH", `/projects/${projectId}`, { plan: "business" }));
    const view = await ok(await admin(gw, "PUT", `/projects/${projectId}/sso`, config()));
    expect(view).toMatchObject({ object: "project.sso", project_id: projectId, issuer: idp.issuer, client_id: idp.clientId, client_secret_set: true, allowed_domains: ["example.com"] });
    expect(JSON.stringify(view)).not.toContain(idp.clientSecret);
    expect(await ok(await admin(gw, "GET", `/projects/${projectId}/sso`))).toEqual(view);
    expect(JSON.stringify(gw.deps.db.query("SELECT * FROM project_sso").all())).not.toContain(idp.clientSecret);
    expect(JSON.stringify(gw.deps.db.query("SELECT * FROM audit_log").all())).not.toContain(idp.clientSecret);
    await expectError(await admin(gw, "PUT", `/projects/${projectId}/sso`, { ...config(), issuer: "ftp://x" }), 400, "invalid_request", "issuer");
    await expectError(await admin(gw, "PUT", `/projects/${projectId}/sso`, { ...config(), allowed_domains: ["not a domain"] }), 400, "invalid_request", "allowed_domains[0]");
    const other = String((await ok(await admin(gw, "POST", "/projects", { name: "rival", plan: "business" }), 201)).id);
    await expectError(await admin(gw, "PUT", `/projects/${other}/sso`, config()), 409, "conflict", "allowed_domains");
    await expectError(await admin(gw, "GET", `/projects/${other}/sso`), 404, "not_found");
  });

  test("happy path: code flow with PKCE S256, state and nonce, to a project session with the e-mail", async () => {
    idp.next = { email: "alice@example.com" };
    const { callback, callbackUrl } = await signInVia(gw, "Alice@Example.com");
    const q = idp.authorizeCalls.at(-1)!;
    expect(q.get("response_type")).toBe("code");
    expect(q.get("scope")).toBe("openid email");
    expect(q.get("code_challenge_method")).toBe("S256");
    expect(q.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get("state")?.length).toBeGreaterThan(20);
    expect(q.get("nonce")?.length).toBeGreaterThan(20);
    expect(q.get("redirect_uri")).toBe(`${origin(gw)}/dashboard/api/sso/callback`);
    // A page that refreshes to the dashboard, so the SameSite=Strict cookie goes with that navigation.
    expect(callback.status).toBe(200);
    const page = await callback.text();
    expect(page).toContain(`<meta http-equiv="refresh" content="0; url=/?project=${projectId}">`);
    expect(page).toContain(`<a href="/?project=${projectId}">Continue to the dashboard</a>`);
    expect(page).not.toContain("<script");
    expect(callback.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(callback.headers.get("content-security-policy")).toContain("default-src 'none'");
    const session = await ok(await fetch(`${origin(gw)}/dashboard/api/session`, { headers: { cookie: cookieOf(callback) } }));
    expect(session).toMatchObject({ role: "project", project_id: projectId, key_id: null, email: "alice@example.com", scopes: ["requests", "cache"] });
    expect((await gw.deps.audit.list({ limit: 1 })).data[0]).toMatchObject({ action: "sso.sign_in", outcome: "success", actorType: "sso", actorEmail: "alice@example.com", projectId });
    // The state is used up: the same callback again fails.
    const replay = await fetch(callbackUrl, { redirect: "manual" });
    expect(replay.headers.get("location")).toBe("/?sso_error=state");
  });

  test("an e-mail domain no project's SSO takes: 404", async () => {
    const error = await expectError(await start(gw, "bob@other.org"), 404, "not_found");
    expect(error.message).toBe("No SSO for this e-mail domain.");
    await expectError(await start(gw, "not-an-email"), 400, "invalid_request", "email");
  });

  const failures: Array<[string, ScriptedOidc["next"], string]> = [
    ["a verifier that does not match the challenge", { email: "alice@example.com", verifierOverride: "x".repeat(43) }, "token_exchange"],
    ["a wrong nonce", { email: "alice@example.com", claims: { nonce: "replayed" } }, "nonce"],
    ["another audience", { email: "alice@example.com", claims: { aud: "someone-else" } }, "audience"],
    ["another issuer", { email: "alice@example.com", claims: { iss: "https://evil.example" } }, "issuer"],
    ["an expired token", { email: "alice@example.com", claims: { exp: 1_000_000_000 } }, "expired"],
    ["a token signed by another key", { email: "alice@example.com", foreignKey: true }, "id_token"],
    ["an unverified e-mail", { email: "alice@example.com", claims: { email_verified: false } }, "email_unverified"],
    ["an e-mail of a domain not allowed", { email: "mallory@evil.example" }, "domain"],
  ];
  for (const [what, next, reason] of failures) {
    test(`${what}: no session, 302 to /?sso_error=${reason}, audited as a failure`, async () => {
      idp.next = next;
      const { callback } = await signInVia(gw, "alice@example.com");
      expect(callback.status).toBe(302);
      expect(callback.headers.get("location")).toBe(`/?sso_error=${reason}`);
      expect(callback.headers.get("set-cookie")).toBeNull();
      expect((await gw.deps.audit.list({ limit: 1 })).data[0]).toMatchObject({ action: "sso.sign_in", outcome: "failure", projectId, details: { reason } });
    });
  }

  test("a state older than 10 minutes is refused", async () => {
    idp.next = { email: "alice@example.com" };
    const { redirect_url } = (await ok(await start(gw, "alice@example.com"))) as { redirect_url: string };
    const back = await fetch(redirect_url, { redirect: "manual" });
    clock.advance(10 * 60 * 1000);
    const callback = await fetch(back.headers.get("location") ?? "", { redirect: "manual" });
    expect(callback.headers.get("location")).toBe("/?sso_error=state");
  });

  test("off plan business: start is refused, and an SSO session ends at its next call", async () => {
    idp.next = { email: "alice@example.com" };
    const { callback } = await signInVia(gw, "alice@example.com");
    const cookie = cookieOf(callback);
    await ok(await fetch(`${origin(gw)}/dashboard/api/session`, { headers: { cookie } }));
    await ok(await admin(gw, "PATCH", `/projects/${projectId}`, { plan: "pro" }));
    const denied = await expectError(await start(gw, "alice@example.com"), 403, "permission_denied");
    expect(denied.message).toBe("SSO needs plan business.");
    await expectError(await fetch(`${origin(gw)}/dashboard/api/session`, { headers: { cookie } }), 401, "invalid_api_key");
  });

  test("an issuer that cannot be reached: start answers 502 upstream_error", async () => {
    const down = String((await ok(await admin(gw, "POST", "/projects", { name: "down", plan: "business" }), 201)).id);
    const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const issuer = `http://127.0.0.1:${closed.port}`;
    await closed.stop(true);
    await ok(await admin(gw, "PUT", `/projects/${down}/sso`, { ...config(), issuer, allowed_domains: ["down.example"] }));
    await expectError(await start(gw, "carol@down.example"), 502, "upstream_error");
  });

  test("per address and minute: 10 failed callbacks, then rate_limited and no more audit entries; 30 starts, then 429", async () => {
    clock.advance(61_000);
    const before = (await gw.deps.audit.list({ limit: 200 })).data.length;
    const bogus = () => fetch(`${origin(gw)}/dashboard/api/sso/callback?code=x&state=bogus`, { redirect: "manual" });
    for (let i = 0; i < 10; i++) expect((await bogus()).headers.get("location")).toBe("/?sso_error=state");
    expect((await bogus()).headers.get("location")).toBe("/?sso_error=rate_limited");
    expect((await gw.deps.audit.list({ limit: 200 })).data.length).toBe(before + 10);
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await start(gw, "nobody@nowhere.example")).status);
    expect(statuses).toEqual([...Array<number>(30).fill(404), 429]);
    clock.advance(61_000);
  });

  test("DELETE removes the config; configuring is audited without the secret", async () => {
    await ok(await admin(gw, "PATCH", `/projects/${projectId}`, { plan: "business" }));
    expect(await ok(await admin(gw, "DELETE", `/projects/${projectId}/sso`))).toEqual({ object: "project.sso", project_id: projectId, deleted: true });
    await expectError(await start(gw, "alice@example.com"), 404, "not_found");
    const configured = (await gw.deps.audit.list({ projectId, limit: 200 })).data.filter((e) => e.action === "sso.configure");
    expect(configured.map((e) => [e.outcome, e.status])).toEqual([["success", 200], ["failure", 400], ["failure", 400], ["success", 200], ["failure", 403]]);
    expect(configured[0]?.details).toEqual({ removed: true });
    expect(configured[3]?.details).toEqual({ issuer: idp.issuer, allowed_domains: ["Example.com"] });
  });
});
