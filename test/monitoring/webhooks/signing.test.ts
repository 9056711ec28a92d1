import { describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { newWebhookSecret, signatureHeaders, signingSecrets, signOne } from "../../../src/monitoring/webhooks/signing.ts";

const body = JSON.stringify({ id: "evt_1", type: "test.ping", data: { hello: "wörld" } });
const nowS = (): number => Math.floor(Date.now() / 1000); // the reference verifier reads the real clock

describe("webhook signing (Standard Webhooks)", () => {
  test("a secret is whsec_ + base64 of 32 random bytes, different each time", () => {
    const a = newWebhookSecret();
    const b = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), "base64").length).toBe(32);
    expect(a).not.toBe(b);
  });

  test("the reference verifier accepts a delivery and returns the parsed body", () => {
    const secret = newWebhookSecret();
    const headers = signatureHeaders([secret], "evt_abc", nowS(), body);
    expect(headers["webhook-id"]).toBe("evt_abc");
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
  });

  test("agrees with the reference signer byte for byte", () => {
    const secret = newWebhookSecret();
    const ts = 1_790_000_000;
    expect(signOne(secret, "evt_x", ts, body)).toBe(new Webhook(secret).sign("evt_x", new Date(ts * 1000), body));
  });

  test("a one-byte change in the body, the id or the timestamp is refused", () => {
    const secret = newWebhookSecret();
    const ts = nowS();
    const headers = signatureHeaders([secret], "evt_abc", ts, body);
    const wh = new Webhook(secret);
    expect(() => wh.verify(body.replace("wörld", "wörle"), { ...headers })).toThrow("No matching signature");
    expect(() => wh.verify(`${body} `, { ...headers })).toThrow("No matching signature");
    expect(() => wh.verify(body, { ...headers, "webhook-id": "evt_abd" })).toThrow("No matching signature");
    expect(() => wh.verify(body, { ...headers, "webhook-timestamp": String(ts - 1) })).toThrow("No matching signature");
  });

  test("a stale or future timestamp is refused even with a valid signature", () => {
    const secret = newWebhookSecret();
    const wh = new Webhook(secret);
    const stale = signatureHeaders([secret], "evt_old", nowS() - 10 * 60, body);
    expect(() => wh.verify(body, { ...stale })).toThrow("too old");
    const future = signatureHeaders([secret], "evt_new", nowS() + 10 * 60, body);
    expect(() => wh.verify(body, { ...future })).toThrow("too new");
  });

  test("another secret does not verify", () => {
    const headers = signatureHeaders([newWebhookSecret()], "evt_abc", nowS(), body);
    expect(() => new Webhook(newWebhookSecret()).verify(body, { ...headers })).toThrow("No matching signature");
  });

  test("during rotation both the old and the new secret verify the same delivery", () => {
    const oldSecret = newWebhookSecret();
    const newSecret = newWebhookSecret();
    const headers = signatureHeaders([newSecret, oldSecret], "evt_rot", nowS(), body);
    const sigs = headers["webhook-signature"].split(" ");
    expect(sigs).toHaveLength(2);
    for (const s of sigs) expect(s.startsWith("v1,")).toBe(true);
    expect(new Webhook(oldSecret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(new Webhook(newSecret).verify(body, { ...headers })).toEqual(JSON.parse(body));
  });

  test("a replay keeps webhook-id and re-signs with the new timestamp", () => {
    const secret = newWebhookSecret();
    const first = signatureHeaders([secret], "evt_same", nowS() - 100, body);
    const replay = signatureHeaders([secret], "evt_same", nowS(), body);
    expect(replay["webhook-id"]).toBe(first["webhook-id"]);
    expect(replay["webhook-signature"]).not.toBe(first["webhook-signature"]);
    expect(() => new Webhook(secret).verify(body, { ...replay })).not.toThrow();
  });

  test("refuses to sign without a secret, with a fractional timestamp, or with an empty secret", () => {
    expect(() => signatureHeaders([], "evt_a", 1, body)).toThrow();
    expect(() => signatureHeaders([newWebhookSecret()], "evt_a", 1.5, body)).toThrow();
    expect(() => signatureHeaders(["whsec_"], "evt_a", 1, body)).toThrow();
  });

  test("the old secret signs alongside the new one for 24 hours after a rotation, then stops", () => {
    const t = Date.UTC(2026, 10, 26);
    const day = 24 * 3600 * 1000;
    expect(signingSecrets("whsec_new", null, null, t)).toEqual(["whsec_new"]);
    expect(signingSecrets("whsec_new", "whsec_old", t, t)).toEqual(["whsec_new", "whsec_old"]);
    expect(signingSecrets("whsec_new", "whsec_old", t, t + day - 1)).toEqual(["whsec_new", "whsec_old"]);
    expect(signingSecrets("whsec_new", "whsec_old", t, t + day)).toEqual(["whsec_new"]);
    expect(signingSecrets("whsec_new", "whsec_old", null, t)).toEqual(["whsec_new"]);
  });
});
