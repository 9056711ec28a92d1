// The only place ids are minted. Ids sort by creation time (48-bit ms timestamp, then a
// per-process counter, then randomness), so `ORDER BY id DESC` is newest first and a request id
// works as a pagination cursor.
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"; // Crockford base32, lower case

let lastMs = 0;
let counter = 0;

function timePart(ms: number): string {
  let out = "";
  let n = ms;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[n % 32] + out;
    n = Math.floor(n / 32);
  }
  return out;
}

// Random bytes come from a pool refilled 4 KiB at a time: one getRandomValues call per ~100 ids
// instead of one per id (ids are minted several times per request: request, spans, completion).
const pool = new Uint8Array(4096);
let poolPos = pool.length;

function randomPart(length: number): string {
  if (poolPos + length > pool.length) {
    crypto.getRandomValues(pool);
    poolPos = 0;
  }
  let out = "";
  for (let i = 0; i < length; i++) out += ALPHABET[(pool[poolPos++] as number) & 31];
  return out;
}

let lastTime = timePart(0);

/** 10 chars of time, 4 of counter, 8 of randomness: 22 chars, monotonic within a process. */
export function sortableId(now = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    lastTime = timePart(now);
    counter = 0;
  } else {
    counter++;
  }
  return lastTime + counter.toString(32).padStart(4, "0") + randomPart(8);
}

export const newRequestId = (): string => `req_${sortableId()}`;
/** Not an id: the lowest request id of a millisecond, so `id < requestIdAt(t)` holds exactly for
 * requests whose id was minted before t (retention deletes by this id range). */
export const requestIdAt = (ms: number): string => `req_${timePart(ms)}`;
export const newTraceId = (): string => `trc_${sortableId()}`;
export const newProjectId = (): string => `prj_${sortableId()}`;
export const newKeyId = (): string => `key_${sortableId()}`;
export const newCompletionId = (): string => `chatcmpl-${sortableId()}`;
export const newCallId = (): string => `call_${randomPart(24)}`;
/** Secret part of an API key: 40 chars of base32 = 200 bits. */
export const newKeySecret = (): string => randomPart(40);
