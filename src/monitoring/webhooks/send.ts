// One HTTP attempt of a delivery (docs/webhooks.md "Retries", "Endpoint URLs"): the URL is checked
// again, plain http goes to the checked address itself, redirects are not followed, 15 s at most,
// and only the first 1 KB of the answer is kept (a huge answer is never read whole).
import { checkWebhookUrl, type Resolve } from "./url-safety.ts";

export const DELIVERY_TIMEOUT_MS = 15_000;
export const EXCERPT_BYTES = 1024;

export interface SendResult {
  status: number | null;
  error: string | null;
  excerpt: string | null;
  retryAfter: string | null;
  durationMs: number;
}

export interface SendOptions {
  allowLoopback: boolean;
  resolve?: Resolve;
  timeoutMs?: number;
}

/** The first `EXCERPT_BYTES` of a body: reads chunk by chunk and stops once it has enough. */
async function excerptOf(res: Response): Promise<string> {
  if (res.body === null) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < EXCERPT_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    void reader.cancel().catch(() => {});
  }
  const bytes = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES);
  return new TextDecoder("utf-8", { fatal: false }).decode(bytes);
}

const describe = (err: unknown): string => {
  if (err instanceof Error) {
    if (err.name === "TimeoutError" || err.name === "AbortError") return "timed out";
    return err.message || err.name;
  }
  return String(err);
};

export async function sendDelivery(
  urlText: string,
  headers: Record<string, string>,
  body: string,
  options: SendOptions,
): Promise<SendResult> {
  const started = performance.now();
  const took = (): number => Math.round(performance.now() - started);
  const checked = await checkWebhookUrl(urlText, { allowLoopback: options.allowLoopback, resolve: options.resolve });
  if (!checked.ok) return { status: null, error: `refused: ${checked.reason}`, excerpt: null, retryAfter: null, durationMs: took() };

  // Plain http connects to the address just checked, so a name cannot resolve elsewhere between
  // the check and the connection; https keeps the name for its certificate ("Endpoint URLs").
  const target = new URL(checked.url.href);
  const sendHeaders: Record<string, string> = { "content-type": "application/json", "user-agent": "gw-webhooks", ...headers };
  const address = checked.addresses[0];
  if (checked.url.protocol === "http:" && address !== undefined && target.hostname.replace(/^\[|\]$/g, "") !== address) {
    target.hostname = address.includes(":") ? `[${address}]` : address;
    sendHeaders.host = checked.url.host;
  }
  try {
    const res = await fetch(target, {
      method: "POST",
      headers: sendHeaders,
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(options.timeoutMs ?? DELIVERY_TIMEOUT_MS),
    });
    let excerpt: string | null = null;
    let error: string | null = null;
    try {
      excerpt = await excerptOf(res);
    } catch (err) {
      error = `answer not read: ${describe(err)}`;
    }
    return { status: res.status, error, excerpt, retryAfter: res.headers.get("retry-after"), durationMs: took() };
  } catch (err) {
    return { status: null, error: describe(err), excerpt: null, retryAfter: null, durationMs: took() };
  }
}
