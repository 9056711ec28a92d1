import { describe, expect, test } from "bun:test";
import { decodeSse, encodeSseData, encodeSseEvent, type SseEvent } from "../../src/providers/sse-decoder.ts";

const enc = new TextEncoder();

function streamOf(chunks: Array<Uint8Array | string>): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(c) {
      const chunk = chunks[i++];
      if (chunk === undefined) c.close();
      else c.enqueue(typeof chunk === "string" ? enc.encode(chunk) : chunk);
    },
  });
}

async function collect(chunks: Array<Uint8Array | string>): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const ev of decodeSse(streamOf(chunks))) out.push(ev);
  return out;
}

/** Splits bytes into pieces of `size` bytes. */
function pieces(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

const msg = (data: string, event: string | null = null): SseEvent => ({ event, data });

describe("decodeSse line endings", () => {
  test("LF", async () => {
    expect(await collect(["data: a\n\ndata: b\n\n"])).toEqual([msg("a"), msg("b")]);
  });
  test("CRLF", async () => {
    expect(await collect(["data: a\r\n\r\ndata: b\r\n\r\n"])).toEqual([msg("a"), msg("b")]);
  });
  test("lone CR", async () => {
    expect(await collect(["data: a\r\rdata: b\r\r"])).toEqual([msg("a"), msg("b")]);
  });
  test("mixed terminators", async () => {
    expect(await collect(["data: a\rdata: b\r\ndata: c\n\r\n"])).toEqual([msg("a\nb\nc")]);
  });
  test("CR at the end of one chunk and LF at the start of the next is one line break", async () => {
    expect(await collect(["data: a\r", "\ndata: b\r", "\n\r", "\n"])).toEqual([msg("a\nb")]);
  });
  test("CR then an empty chunk then LF is still one line break", async () => {
    expect(await collect(["data: a\r", "", "\n", "\r\n"])).toEqual([msg("a")]);
  });
  test("CR CR across chunks is two line breaks (dispatch)", async () => {
    expect(await collect(["data: a\r", "\rdata: b\n\n"])).toEqual([msg("a"), msg("b")]);
  });
  test("a line split across many chunks", async () => {
    expect(await collect(["da", "ta", ": hel", "lo wor", "ld", "\n", "\n"])).toEqual([msg("hello world")]);
  });
});

describe("decodeSse UTF-8", () => {
  for (const [name, text] of [
    ["emoji", "hi 😀👍🏽 there"],
    ["CJK", "你好，世界。日本語のテキスト"],
    ["mixed", "é😀中\u{10FFFF}z"],
  ] as const) {
    test(`${name} split at every byte offset`, async () => {
      const bytes = enc.encode(`event: t\ndata: ${text}\n\ndata: ${text}${text}\n\n`);
      const expected = [msg(text, "t"), msg(text + text)];
      for (let cut = 1; cut < bytes.length; cut++) {
        const got = await collect([bytes.subarray(0, cut), bytes.subarray(cut)]);
        expect(got).toEqual(expected);
      }
      expect(await collect(pieces(bytes, 1))).toEqual(expected);
    });
  }
  test("a leading BOM is ignored", async () => {
    expect(await collect([new Uint8Array([0xef, 0xbb]), new Uint8Array([0xbf]), "data: x\n\n"])).toEqual([msg("x")]);
  });
});

describe("decodeSse fields", () => {
  test("multi-line data joins with LF", async () => {
    expect(await collect(["data: one\ndata: two\ndata:three\n\n"])).toEqual([msg("one\ntwo\nthree")]);
  });
  test("event names are per event", async () => {
    const got = await collect(["event: ping\ndata: 1\n\ndata: 2\n\nevent: message_stop\ndata: {}\n\n"]);
    expect(got).toEqual([msg("1", "ping"), msg("2"), msg("{}", "message_stop")]);
  });
  test("comments are ignored", async () => {
    expect(await collect([": keep-alive\n\n:another\ndata: x\n: mid\n\n"])).toEqual([msg("x")]);
  });
  test("only a single leading space is stripped", async () => {
    expect(await collect(["data:  two spaces\ndata:none\n\n"])).toEqual([msg(" two spaces\nnone")]);
  });
  test("colons in the value are kept", async () => {
    expect(await collect(['data: {"a":"b:c"}\n\n'])).toEqual([msg('{"a":"b:c"}')]);
  });
  test("id field persists as the last event id; empty id resets it", async () => {
    const got = await collect(["id: 42\ndata: a\n\ndata: b\n\nid\ndata: c\n\nid: x\0y\ndata: d\n\n"]);
    expect(got).toEqual([
      { event: null, data: "a", id: "42" },
      { event: null, data: "b", id: "42" },
      msg("c"),
      msg("d"),
    ]);
  });
  test("empty data dispatches an empty string", async () => {
    expect(await collect(["data:\n\ndata: \n\n"])).toEqual([msg(""), msg("")]);
  });
  test("`data` without a colon is an empty data line", async () => {
    expect(await collect(["data\n\ndata\ndata\n\n"])).toEqual([msg(""), msg("\n")]);
  });
  test("an event without data is not dispatched", async () => {
    expect(await collect(["event: x\n\nretry: 100\n\nfoo: bar\n\ndata: y\n\n"])).toEqual([msg("y")]);
  });
  test("the last event without a trailing blank line is still dispatched", async () => {
    expect(await collect(["data: a\n\ndata: b"])).toEqual([msg("a"), msg("b")]);
    expect(await collect(["event: e\ndata: b\n"])).toEqual([msg("b", "e")]);
    expect(await collect(["data: b\r"])).toEqual([msg("b")]);
  });
  test("empty stream", async () => {
    expect(await collect([])).toEqual([]);
    expect(await collect(["\n\n\n"])).toEqual([]);
  });
});

const OPENAI_STREAM = [
  `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]}`,
  ...["Hello", " wörld", " 😀", " 你好", "!"].map(
    (w) =>
      `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":${JSON.stringify(w)}},"logprobs":null,"finish_reason":null}]}`,
  ),
  `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}`,
  `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":5,"total_tokens":8}}`,
  ": comment",
  "data: [DONE]",
].join("\n\n") + "\n\n";

describe("decodeSse realistic streams", () => {
  test("1-byte chunking of an OpenAI stream equals whole-buffer decoding", async () => {
    const bytes = enc.encode(OPENAI_STREAM);
    const whole = await collect([bytes]);
    expect(whole).toHaveLength(9);
    expect(whole.at(-1)).toEqual(msg("[DONE]"));
    const text = whole
      .slice(0, -1)
      .map((e) => JSON.parse(e.data) as { choices: Array<{ delta: { content?: string } }> })
      .map((c) => c.choices[0]?.delta.content ?? "")
      .join("");
    expect(text).toBe("Hello wörld 😀 你好!");
    expect(await collect(pieces(bytes, 1))).toEqual(whole);
    expect(await collect(pieces(bytes, 7))).toEqual(whole);
    const crlf = enc.encode(OPENAI_STREAM.replaceAll("\n", "\r\n"));
    expect(await collect(pieces(crlf, 1))).toEqual(whole);
  });

  test("many events in one big chunk", async () => {
    const n = 5000;
    const got = await collect([Array.from({ length: n }, (_, i) => `data: ${i}\n\n`).join("")]);
    expect(got).toHaveLength(n);
    expect(got[n - 1]).toEqual(msg(String(n - 1)));
  });

  test("a long line arriving in many small chunks", async () => {
    const long = "x".repeat(200_000);
    const got = await collect([...pieces(enc.encode(`data: ${long}`), 64), "\n\n"]);
    expect(got).toEqual([msg(long)]);
  });
});

describe("decodeSse cancellation", () => {
  test("breaking out cancels the body", async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        c.enqueue(enc.encode("data: x\n\n"));
      },
      cancel() {
        cancelled = true;
      },
    });
    let n = 0;
    for await (const _ of decodeSse(body)) if (++n === 3) break;
    expect(n).toBe(3);
    expect(cancelled).toBe(true);
  });

  test("an abort signal stops a pending read, cancels the body and throws", async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(enc.encode("data: first\n\ndata: partial"));
      },
      cancel() {
        cancelled = true;
      },
    });
    const ac = new AbortController();
    const got: string[] = [];
    const run = (async () => {
      for await (const ev of decodeSse(body, ac.signal)) {
        got.push(ev.data);
        setTimeout(() => ac.abort(), 10);
      }
    })();
    const err = await run.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DOMException);
    expect((err as DOMException).name).toBe("AbortError");
    expect(got).toEqual(["first"]);
    expect(cancelled).toBe(true);
  });
});

describe("encoders", () => {
  test("encodeSseData / encodeSseEvent round-trip through the decoder", async () => {
    const data = JSON.stringify({ a: "ü\u2028😀", b: [1, 2] });
    expect(encodeSseData(data)).toBe(`data: ${data}\n\n`);
    expect(encodeSseEvent("message_start", data)).toBe(`event: message_start\ndata: ${data}\n\n`);
    expect(await collect([encodeSseData(data) + encodeSseEvent("e", "{}")])).toEqual([msg(data), msg("{}", "e")]);
  });
});
