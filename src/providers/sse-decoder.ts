// Owns Server-Sent Events framing for gw: a byte-correct WHATWG SSE decoder for
// upstream provider streams, and the two encoders gw uses to write SSE to clients.
// A line or an event past MAX_SSE_LINE_CHARS fails the stream (docs/availability.md).
import { MAX_SSE_LINE_CHARS } from "./upstream-limits.ts";
import { UpstreamFailure } from "../canonical/failure.ts";

export interface SseEvent {
  /** Value of the last `event:` field, or null when the event had none. */
  event: string | null;
  /** `data:` lines joined with "\n". */
  data: string;
  /** The stream's last event ID (persists across events, per the spec), when non-empty. */
  id?: string;
}

const LF = 10;
const STREAMING = { stream: true } as const;
const COLON = 58;
const SPACE = 32;

const tooLong = (what: string): UpstreamFailure =>
  UpstreamFailure.badBody(`The provider sent an SSE ${what} over ${MAX_SSE_LINE_CHARS} characters.`);

/** Incremental line/field parser over already-decoded text. */
class SseParser {
  private buf = "";
  private skipLf = false; // the previous text ended with CR: a leading LF belongs to it
  private data = "";
  private hasData = false;
  private event: string | null = null;
  private lastId = "";

  feed(text: string, out: SseEvent[]): void {
    if (text.length === 0) return;
    const scanFrom = this.buf.length; // the kept remainder holds no line terminator
    const buf = scanFrom === 0 ? text : this.buf + text;
    let pos = 0;
    if (this.skipLf) {
      this.skipLf = false;
      if (buf.charCodeAt(0) === LF) pos = 1;
    }
    let lf = buf.indexOf("\n", Math.max(pos, scanFrom));
    let cr = buf.indexOf("\r", Math.max(pos, scanFrom));
    while (lf !== -1 || cr !== -1) {
      const start = pos;
      let end: number;
      if (cr === -1 || (lf !== -1 && lf < cr)) {
        end = lf;
        pos = lf + 1;
      } else {
        end = cr;
        pos = cr + 1;
        if (pos === buf.length) this.skipLf = true;
        else if (buf.charCodeAt(pos) === LF) pos++;
      }
      if (start === end) this.dispatch(out);
      else this.field(buf.slice(start, end));
      if (lf !== -1 && lf < pos) lf = buf.indexOf("\n", pos);
      if (cr !== -1 && cr < pos) cr = buf.indexOf("\r", pos);
    }
    this.buf = pos === 0 ? buf : buf.slice(pos);
    // An endless line would otherwise grow the buffer one to one with what the upstream sends.
    if (this.buf.length > MAX_SSE_LINE_CHARS) throw tooLong("line");
  }

  /** End of input: a final unterminated line and a pending event are still delivered. */
  end(out: SseEvent[]): void {
    if (this.buf.length > 0) this.field(this.buf);
    this.buf = "";
    this.dispatch(out);
  }

  private field(line: string): void {
    if (line.charCodeAt(0) === COLON) return; // comment
    const colon = line.indexOf(":");
    let name = line;
    let value = "";
    if (colon !== -1) {
      name = line.slice(0, colon);
      const v = line.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1;
      value = line.slice(v);
    }
    if (name === "data") {
      this.data = this.hasData ? `${this.data}\n${value}` : value;
      this.hasData = true;
      if (this.data.length > MAX_SSE_LINE_CHARS) throw tooLong("event");
    } else if (name === "event") {
      this.event = value.length > 0 ? value : null; // an empty type means the default
    } else if (name === "id") {
      if (value.indexOf("\0") === -1) this.lastId = value;
    } // "retry" and unknown fields are ignored
  }

  private dispatch(out: SseEvent[]): void {
    if (this.hasData) {
      const ev: SseEvent = { event: this.event, data: this.data };
      if (this.lastId.length > 0) ev.id = this.lastId;
      out.push(ev);
    }
    this.data = "";
    this.hasData = false;
    this.event = null;
  }
}

/** Reads an SSE body and yields its events. On abort the body is cancelled and the abort reason thrown. */
export async function* decodeSse(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
): AsyncGenerator<SseEvent> {
  // Each batch is used up before the next is asked for, so its array may be reused.
  for await (const events of decodeSseBatches(body, signal)) {
    for (let i = 0; i < events.length; i++) yield events[i] as SseEvent;
  }
}

/** decodeSse a read at a time: the events of each upstream read as one array, valid until the
 * next is asked for. A reader that loops over them takes one async step per read, not per event. */
export async function* decodeSseBatches(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
): AsyncGenerator<readonly SseEvent[]> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  const out: SseEvent[] = [];
  let finished = false;
  const onAbort = (): void => {
    reader.cancel(signal?.reason).catch(() => undefined);
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    while (true) {
      signal?.throwIfAborted();
      const { value, done } = await reader.read();
      signal?.throwIfAborted();
      if (done) break;
      parser.feed(decoder.decode(value, STREAMING), out);
      if (out.length > 0) {
        yield out;
        out.length = 0;
      }
    }
    parser.feed(decoder.decode(), out);
    parser.end(out);
    finished = true;
    if (out.length > 0) yield out;
  } finally {
    signal?.removeEventListener("abort", onAbort);
    if (!finished) reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/** One unnamed SSE frame. `data` must not contain newlines (JSON.stringify output). */
export function encodeSseData(data: string): string {
  return `data: ${data}\n\n`;
}

/** One named SSE frame. `data` must not contain newlines (JSON.stringify output). */
export function encodeSseEvent(event: string, data: string): string {
  return `event: ${event}\ndata: ${data}\n\n`;
}
