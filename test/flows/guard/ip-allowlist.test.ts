// IP allowlists in the guard stage (docs/security.md "Boundaries"; issue 9 item 6): project policy and key
// lists, IPv4 and IPv6 CIDRs, X-Forwarded-For believed only from GW_TRUSTED_PROXIES.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { clientAddress, inRanges, parseCidr, parseIp, rangesOf } from "../../../src/lib/ip.ts";
import { ADMIN_TOKEN, post, startTestGw, type TestGw } from "../../helpers/test-gw.ts";

describe("CIDR matching", () => {
  const matches = (ip: string, cidr: string) => inRanges(parseIp(ip)!, rangesOf([cidr]));
  test("IPv4, IPv6, IPv4-mapped IPv6, single addresses and /0", () => {
    expect(matches("10.1.2.3", "10.0.0.0/8")).toBe(true);
    expect(matches("11.1.2.3", "10.0.0.0/8")).toBe(false);
    expect(matches("192.168.1.77", "192.168.1.77")).toBe(true);
    expect(matches("192.168.1.78", "192.168.1.77/32")).toBe(false);
    expect(matches("2001:db8:0:1::5", "2001:db8::/32")).toBe(true);
    expect(matches("2001:db9::5", "2001:db8::/32")).toBe(false);
    expect(matches("::ffff:10.0.0.9", "10.0.0.0/8")).toBe(true);
    expect(matches("::1", "::1/128")).toBe(true);
    expect(matches("8.8.8.8", "0.0.0.0/0")).toBe(true);
    expect(matches("fe80::1%eth0", "fe80::/10")).toBe(true);
  });
  test("malformed ranges and addresses are refused", () => {
    for (const bad of ["10.0.0.0/33", "300.1.1.1", "1.2.3", "2001:db8::/129", "2001:::1", "abc", "10.0.0.0/8/1", "1:2:3:4:5:6:7:8:9"]) expect(parseCidr(bad)).toBeNull();
  });
  test("X-Forwarded-For: only from a trusted peer, right-most untrusted hop", () => {
    const trusted = rangesOf(["127.0.0.1/32", "10.0.0.0/8"]);
    const ip = (peer: string, xff: string | null) => clientAddress(peer, xff, trusted);
    expect(ip("127.0.0.1", "203.0.113.5")).toBe(parseIp("203.0.113.5"));
    expect(ip("127.0.0.1", "198.51.100.1, 203.0.113.5, 10.0.0.2")).toBe(parseIp("203.0.113.5"));
    expect(ip("198.51.100.9", "203.0.113.5")).toBe(parseIp("198.51.100.9")); // untrusted peer: header ignored
  });
});

describe("the guard through the server", () => {
  let gw: TestGw;
  let untrusting: TestGw;
  beforeAll(async () => {
    gw = await startTestGw({ GW_TRUSTED_PROXIES: "127.0.0.1/32, ::1/128" });
    untrusting = await startTestGw();
  });
  afterAll(async () => {
    await gw.stop();
    await untrusting.stop();
  });

  const admin = (g: TestGw, method: string, path: string, body: unknown) =>
    fetch(`${g.url}/admin${path}`, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" }, body: JSON.stringify(body) });
  const chat = (g: TestGw, key: string, from: string | null) =>
    post(`${g.url}/chat/completions`, key, { messages: [{ role: "user", content: "hello" }] }, from ? { "x-forwarded-for": from } : {});
  async function keyFor(g: TestGw, policy: Record<string, unknown>, keyList?: string[]): Promise<string> {
    const project = g.newProject("guarded");
    await admin(g, "PATCH", `/projects/${project}`, { policy });
    const res = await admin(g, "POST", `/projects/${project}/keys`, { mode: "test", scopes: ["chat", "requests"], ...(keyList ? { ip_allowlist: keyList } : {}) });
    return ((await res.json()) as { key: string }).key;
  }

  test("a project allowlist (IPv4 and IPv6) admits its ranges and refuses others with 403", async () => {
    const key = await keyFor(gw, { ip_allowlist: ["203.0.113.0/24", "2001:db8::/32"] });
    expect((await chat(gw, key, "203.0.113.7")).status).toBe(200);
    expect((await chat(gw, key, "2001:db8::42")).status).toBe(200);
    expect((await chat(gw, key, "::ffff:203.0.113.9")).status).toBe(200);
    for (const from of ["198.51.100.1", "2001:db9::1"]) {
      const res = await chat(gw, key, from);
      expect(res.status).toBe(403);
      const { error } = (await res.json()) as { error: { code: string; category: string; message: string } };
      expect(error).toMatchObject({ code: "permission_denied", category: "PERMISSION_DENIED" });
      expect(error.message).toContain("IP address");
    }
  });

  test("a key allowlist applies on top of the project's; the refusal is logged with the guard span", async () => {
    const key = await keyFor(gw, { ip_allowlist: ["203.0.113.0/24"] }, ["203.0.113.10/32"]);
    expect((await chat(gw, key, "203.0.113.10")).status).toBe(200);
    const refused = await chat(gw, key, "203.0.113.11");
    expect(refused.status).toBe(403);
    await gw.drain();
    const d = (await (await fetch(`${gw.url}/requests/${refused.headers.get("x-gw-request-id")}`, { headers: { authorization: `Bearer ${key}`, "x-forwarded-for": "203.0.113.10" } })).json()) as { trace: { spans: Array<{ name: string; error_code: string | null }> } };
    expect(d.trace.spans.find((s) => s.name === "guard")?.error_code).toBe("permission_denied");
  });

  test("the admin API refuses ranges it cannot read, naming the entry", async () => {
    const project = gw.newProject("bad-ranges");
    const res = await admin(gw, "PATCH", `/projects/${project}`, { policy: { ip_allowlist: ["10.0.0.0/8", "10.0.0.0/40"] } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { param: string } }).error.param).toBe("policy.ip_allowlist[1]");
    const key = await admin(gw, "POST", `/projects/${project}/keys`, { ip_allowlist: ["not-an-ip"] });
    expect(key.status).toBe(400);
  });

  test("without trusted proxies X-Forwarded-For is ignored: the socket peer decides", async () => {
    const key = await keyFor(untrusting, { ip_allowlist: ["203.0.113.0/24"] });
    expect((await chat(untrusting, key, "203.0.113.7")).status).toBe(403);
    const local = await keyFor(untrusting, { ip_allowlist: ["127.0.0.0/8", "::1/128"] });
    expect((await chat(untrusting, local, "198.51.100.1")).status).toBe(200);
  });
});
