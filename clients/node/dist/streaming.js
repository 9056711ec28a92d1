// Server-sent events from gw as an async iterator (docs/api.md "Streaming"): chat chunks or typed
// Responses events; the closing `gw` summary lands on `stream.gw`, an in-stream error is thrown typed.
import { errorFromBody } from "./errors.js";
/** The events of an SSE body (data lines joined by newlines; comments skipped). */
async function* sseEvents(body) {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    let event = null;
    let data = [];
    try {
        for (;;) {
            const { value, done } = await reader.read();
            buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
            let nl;
            while ((nl = buffer.search(/\r\n|\r|\n/)) >= 0) {
                const line = buffer.slice(0, nl);
                buffer = buffer.slice(nl + (buffer.startsWith("\r\n", nl) ? 2 : 1));
                if (line === "") {
                    if (data.length > 0)
                        yield { event, data: data.join("\n") };
                    event = null;
                    data = [];
                    continue;
                }
                if (line.startsWith(":"))
                    continue;
                const colon = line.indexOf(":");
                const field = colon < 0 ? line : line.slice(0, colon);
                const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
                if (field === "data")
                    data.push(value);
                else if (field === "event")
                    event = value;
            }
            if (done)
                break;
        }
        if (data.length > 0)
            yield { event, data: data.join("\n") };
    }
    finally {
        await reader.cancel().catch(() => undefined);
    }
}
/** A streamed answer. Iterate it once; `gw` is set when the stream has ended. */
export class Stream {
    /** The `gw` summary (request id, model, cost...), after the last item. */
    gw = null;
    response;
    /** X-Gw-Request-Id of the stream. */
    requestId;
    #step;
    #used = false;
    constructor(response, step) {
        this.response = response;
        this.requestId = response.headers.get("x-gw-request-id");
        this.#step = step;
    }
    async *[Symbol.asyncIterator]() {
        if (this.#used)
            throw new Error("a stream can be iterated only once");
        this.#used = true;
        if (!this.response.body)
            return;
        for await (const event of sseEvents(this.response.body)) {
            const step = this.#step(event, this);
            if ("end" in step)
                return;
            if ("yield" in step)
                yield step.yield;
        }
    }
    /** Raises the typed error of an in-stream error object. */
    fail(error) {
        throw errorFromBody(error, undefined, this.response.headers);
    }
}
function parse(data) {
    const json = JSON.parse(data);
    return typeof json === "object" && json !== null ? json : {};
}
/** Chat completions: chunks until `[DONE]`; the `gw.summary` line fills `stream.gw`. */
export function chatStep(event, stream) {
    if (event.data === "[DONE]")
        return { end: true };
    const json = parse(event.data);
    if (json.error && typeof json.error === "object")
        stream.fail(json.error);
    if (json.object === "gw.summary") {
        stream.gw = json.gw ?? null;
        return { skip: true };
    }
    return { yield: json };
}
/** Responses: every typed event; `response.completed` carries `gw`, `error` is thrown. */
export function responseStep(event, stream) {
    if (event.data === "[DONE]")
        return { end: true };
    const json = parse(event.data);
    const type = json.type ?? event.event;
    if (type === "error")
        stream.fail((json.error ?? json));
    if (type === "response.completed") {
        const response = json.response;
        stream.gw = response?.gw ?? null;
    }
    return { yield: json };
}
