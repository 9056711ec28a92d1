// The standard-library Python verifier in docs/webhooks.md "Verifying a delivery", run as written by
// python3 against real deliveries from gw: it accepts them, refuses a one-byte change, a stale
// timestamp and a wrong secret, and accepts either signature during a rotation.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { admin, ok } from "../../helpers/admin-api.ts";
import { startTestGw, type TestGw } from "../../helpers/test-gw.ts";
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from "../../helpers/webhook-receiver.ts";

const DOC = readFileSync(join(import.meta.dir, "../../../docs", "webhooks.md"), "utf8");
const block = /Python with the standard library only[\s\S]*?```python\n([\s\S]*?)```/.exec(DOC)?.[1];
// Reads a case from argv: secret, headers JSON, body file; prints the event type or the error.
const RUNNER = `
import json, sys
${block}
secret, headers, body_file = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
try:
    print("ok " + verify_gw_webhook(secret, headers, open(body_file, "rb").read())["type"])
except Exception as err:
    print("refused " + str(err))
`;

let gw: TestGw;
let receiver: WebhookReceiver;
let dir: string;
beforeAll(async () => {
  gw = await startTestGw({ GW_WEBHOOK_ALLOW_LOOPBACK: "1" });
  receiver = startWebhookReceiver();
  dir = mkdtempSync(join(tmpdir(), "gw-pyverify-"));
  writeFileSync(join(dir, "verify.py"), RUNNER);
});
afterAll(async () => {
  await gw.stop();
  await receiver.stop();
  rmSync(dir, { recursive: true, force: true });
});

function python(secret: string, req: ReceivedRequest, body = req.body, headers: Record<string, string> = req.headers): string {
  writeFileSync(join(dir, "body"), body);
  const run = Bun.spawnSync(["python3", join(dir, "verify.py"), secret, JSON.stringify(headers), join(dir, "body")]);
  if (run.exitCode !== 0) throw new Error(run.stderr.toString());
  return run.stdout.toString().trim();
}

test("the documented Python verifier accepts gw's deliveries and refuses tampering", async () => {
  expect(block).toBeString();
  const created = await ok(await admin(gw, "POST", `/projects/${gw.projectId}/webhooks`, { url: receiver.url }), 201);
  const secret = String(created.secret);
  await ok(await admin(gw, "POST", `/webhooks/${created.id}/test`));
  const [ping] = await receiver.waitFor(1);
  expect(python(secret, ping!)).toBe("ok test.ping");
  expect(python(secret, ping!, ping!.body.replace("test.ping", "test.pong"))).toStartWith("refused no webhook signature");
  const stale = { ...ping!.headers, "webhook-timestamp": String(Number(ping!.headers["webhook-timestamp"]) - 600) };
  expect(python(secret, ping!, ping!.body, stale)).toStartWith("refused webhook timestamp");
  const other = await ok(await admin(gw, "POST", `/projects/${gw.projectId}/webhooks`, { url: receiver.url }), 201);
  expect(python(String(other.secret), ping!)).toStartWith("refused");

  // During a rotation both secrets sign; the verifier accepts the delivery with either.
  const rotated = await ok(await admin(gw, "POST", `/webhooks/${created.id}/rotate-secret`));
  await ok(await admin(gw, "POST", `/webhooks/${created.id}/test`));
  const [, after] = await receiver.waitFor(2);
  expect(after!.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
  expect(python(secret, after!)).toBe("ok test.ping");
  expect(python(String(rotated.secret), after!)).toBe("ok test.ping");
});
