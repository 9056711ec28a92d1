// Bun's TracingChannel lacks Node's `hasSubscribers` getter, so pino (which checks it before every
// log call) pays for diagnostics tracing on every line. This adds the getter as Node defines it:
// true when any of the five channels has a subscriber. Must be imported before pino.
import diagnostics from "node:diagnostics_channel";

const CHANNELS = ["start", "end", "asyncStart", "asyncEnd", "error"] as const;
type Channels = Record<(typeof CHANNELS)[number], { hasSubscribers?: boolean } | undefined>;

const proto = Object.getPrototypeOf(diagnostics.tracingChannel("gw:probe")) as object;
if (!("hasSubscribers" in proto)) {
  Object.defineProperty(proto, "hasSubscribers", {
    configurable: true,
    get(this: Channels) {
      return CHANNELS.some((name) => this[name]?.hasSubscribers === true);
    },
  });
}
