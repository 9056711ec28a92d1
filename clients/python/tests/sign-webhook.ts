// Signs a payload with the npm `standardwebhooks` package, for the Python client's verify test.
// argv: secret, message id, unix seconds; the payload on stdin. Prints the webhook-signature value.
import { Webhook } from "standardwebhooks";

const [secret, msgId, seconds] = process.argv.slice(2);
if (!secret || !msgId || !seconds) throw new Error("usage: sign-webhook.ts SECRET MSG_ID UNIX_SECONDS < payload");
const payload = await new Response(Bun.stdin.stream()).text();
console.log(new Webhook(secret).sign(msgId, new Date(Number(seconds) * 1000), payload));
