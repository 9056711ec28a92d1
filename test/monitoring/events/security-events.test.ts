// Security events from a real gw on a ManualClock (docs/webhooks.md "Event types"): key lifecycle
// from the admin API, guard findings and blocked addresses counted per 5-minute window and sent
// when it ends (never the matched text), and a spike of failed authentications.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { WINDOW_MS, windowStart } from "../../../src/monitoring/events/thresholds.ts";
import { admin, billedProject, chat, user } from "../../flows/billing/billing-helpers.ts";
import { ok } from "../../helpers/admin-api.ts";
import { eventsOf, ManualClock, NOON, startEventsGw, type TestGw } from "./events-helpers.ts";

let gw: TestGw;
let clock: ManualClock;
let stop: () => Promise<void>;
beforeAll(async () => ({ gw, clock, stop } = await startEventsGw()));
afterAll(() => stop());

const window = (ms: number) => ({ window_start: new Date(windowStart(ms)).toISOString(), window_end: new Date(windowStart(ms) + WINDOW_MS).toISOString() });
const requestId = (res: Response) => res.headers.get("x-gw-request-id")!;

describe("security.key_created / security.key_revoked", () => {
  test("carry the key's id, name, mode and scopes, never its secret; once per key", async () => {
    const p = await billedProject(gw);
    const created = await ok(await admin(gw, "POST", `/projects/${p.id}/keys`, { name: "ci", scopes: ["chat"], mode: "live" }), 201);
    const id = created.id as string;
    await ok(await admin(gw, "DELETE", `/keys/${id}`));
    await admin(gw, "DELETE", `/keys/${id}`);
    const events = eventsOf(gw, p.id).filter((e) => e.type.startsWith("security.key_"));
    expect(events.map((e) => [e.type, e.key])).toEqual([["security.key_created", id], ["security.key_revoked", id]]);
    for (const e of events) expect(e.data).toEqual({ key_id: id, name: "ci", mode: "live", scopes: ["chat"] });
    expect(events.some((e) => e.body.includes(created.key as string))).toBe(false);
  });
});

describe("security.pii_blocked and security.secret_detected", () => {
  test("two blocked requests in one window: one event each, both request ids, the kinds, no matched text", async () => {
    clock.set(NOON + 60_000);
    const p = await billedProject(gw, { policy: { pii: "block", secrets: "block" } });
    const email = "jane.doe@example.com";
    const secret = "AKIAIOSFODNN7EXAMPLE";
    const a = await chat(gw, p.key, { messages: user(`Mail ${email} the numbers.`) });
    const b = await chat(gw, p.key, { messages: user(`Use ${secret} and reply to ${email}.`) });
    expect([a.status, b.status]).toEqual([400, 400]);
    // Nothing is sent while the window runs.
    expect(gw.deps.eventSources.runDue()).toBe(0);
    expect(eventsOf(gw, p.id)).toEqual([]);
    clock.advance(WINDOW_MS);
    gw.deps.eventSources.runDue();
    const pii = eventsOf(gw, p.id, "security.pii_blocked");
    expect(pii).toHaveLength(1);
    expect(pii[0]!.key).toBe(window(NOON + 60_000).window_start);
    expect(pii[0]!.data).toEqual({ ...window(NOON + 60_000), count: 2, request_ids: [requestId(a), requestId(b)], kinds: ["email"] });
    const secrets = eventsOf(gw, p.id, "security.secret_detected");
    expect(secrets).toHaveLength(1);
    expect(secrets[0]!.data).toEqual({ ...window(NOON + 60_000), count: 1, request_ids: [requestId(b)], kinds: ["secret"] });
    for (const e of [...pii, ...secrets]) expect(e.body.includes(email) || e.body.includes(secret)).toBe(false);
    // A second pass sends nothing again.
    gw.deps.eventSources.runDue();
    expect(eventsOf(gw, p.id)).toHaveLength(2);
  });
});

describe("security.ip_blocked", () => {
  test("requests refused by the IP allowlist are counted per window: one event", async () => {
    clock.set(NOON + 20 * 60_000);
    const p = await billedProject(gw, { policy: { ip_allowlist: ["10.0.0.0/8"] } });
    const a = await chat(gw, p.key, { messages: user("hello") });
    const b = await chat(gw, p.key, { messages: user("hello again") });
    expect([a.status, b.status]).toEqual([403, 403]);
    clock.advance(WINDOW_MS);
    gw.deps.eventSources.runDue();
    const events = eventsOf(gw, p.id, "security.ip_blocked");
    expect(events).toHaveLength(1);
    const key = gw.deps.db.query<{ id: string }, [string]>("SELECT id FROM api_keys WHERE project_id = ?").get(p.id)!.id;
    expect(events[0]!.data).toEqual({ ...window(NOON + 20 * 60_000), count: 2, request_ids: [requestId(a), requestId(b)], key_ids: [key] });
  });
});

describe("security.auth_failure_spike", () => {
  test("the 20th use of a revoked key in a window sends one event; the 21st nothing more", async () => {
    clock.set(NOON + 40 * 60_000);
    const p = await billedProject(gw);
    const created = await ok(await admin(gw, "POST", `/projects/${p.id}/keys`, { name: "leaked" }), 201);
    await ok(await admin(gw, "DELETE", `/keys/${created.id as string}`));
    const fail = async () => expect((await chat(gw, created.key as string, { messages: user("hi") })).status).toBe(401);
    for (let i = 0; i < 19; i++) await fail();
    expect(eventsOf(gw, p.id, "security.auth_failure_spike")).toEqual([]);
    await fail();
    await fail();
    const events = eventsOf(gw, p.id, "security.auth_failure_spike");
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toEqual({ ...window(NOON + 40 * 60_000), failures: 20, threshold: 20, key_ids: [created.id] });
  });
});
