// Opens `count` chat streams, `concurrency` at a time, and prints JSON with each stream's time to
// first body byte (ttfb) and to last byte (ttlb) in ms. Run by scenarios/streaming.ts as its own process.
export interface Job {
  url: string;
  headers: Record<string, string>;
  body: string;
  count: number;
  concurrency: number;
  timeoutMs: number;
}

const job = JSON.parse(process.argv[2] ?? "{}") as Job;
const ttfb: number[] = [];
const ttlb: number[] = [];
const errors: string[] = [];
let next = 0;

async function one(): Promise<void> {
  const t0 = performance.now();
  const res = await fetch(job.url, { method: "POST", headers: job.headers, body: job.body, signal: AbortSignal.timeout(job.timeoutMs) });
  if (res.status !== 200 || !res.body) throw new Error(`status ${res.status}: ${(await res.text()).slice(0, 200)}`);
  const reader = res.body.getReader();
  let first = NaN;
  let tail = "";
  while (true) {
    const { value, done } = await reader.read();
    if (done) break;
    if (Number.isNaN(first)) first = performance.now() - t0;
    tail = (tail + new TextDecoder().decode(value)).slice(-64);
  }
  const last = performance.now() - t0;
  if (!tail.includes("[DONE]")) throw new Error("stream ended without [DONE]");
  ttfb.push(first);
  ttlb.push(last);
}

async function worker(): Promise<void> {
  while (next < job.count) {
    next++;
    try {
      await one();
    } catch (err) {
      errors.push(String(err));
    }
  }
}

await Promise.all(Array.from({ length: job.concurrency }, worker));
console.log(JSON.stringify({ ttfb, ttlb, errors: errors.length, firstError: errors[0] ?? null }));
