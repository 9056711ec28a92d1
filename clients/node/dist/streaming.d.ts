import { type ErrorBody } from "./errors.js";
import type { GwInfo } from "./types.js";
interface SseEvent {
    event: string | null;
    data: string;
}
type Step<T> = {
    yield: T;
} | {
    skip: true;
} | {
    end: true;
};
/** A streamed answer. Iterate it once; `gw` is set when the stream has ended. */
export declare class Stream<T> implements AsyncIterable<T> {
    #private;
    /** The `gw` summary (request id, model, cost...), after the last item. */
    gw: GwInfo | null;
    readonly response: Response;
    /** X-Gw-Request-Id of the stream. */
    readonly requestId: string | null;
    constructor(response: Response, step: (event: SseEvent, stream: Stream<T>) => Step<T>);
    [Symbol.asyncIterator](): AsyncIterator<T>;
    /** Raises the typed error of an in-stream error object. */
    fail(error: ErrorBody): never;
}
/** Chat completions: chunks until `[DONE]`; the `gw.summary` line fills `stream.gw`. */
export declare function chatStep<T>(event: SseEvent, stream: Stream<T>): Step<T>;
/** Responses: every typed event; `response.completed` carries `gw`, `error` is thrown. */
export declare function responseStep<T>(event: SseEvent, stream: Stream<T>): Step<T>;
export {};
