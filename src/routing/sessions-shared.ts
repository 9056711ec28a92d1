// Session stickiness in the multi-instance mode (docs/scale-out.md "Redis"): a conversation's turns
// may reach any instance, so its pin is Redis's. Read before routing into this instance's store (whose
// synchronous reads the route stage keeps); each answered turn is written to both.
import type { RedisSessionPins } from "../store/redis/session-pins.ts";
import { OutageLatch } from "../store/redis/redis-call.ts";
import { SessionStore } from "./sessions.ts";

export class SharedSessionStore extends SessionStore {
  private readonly outage = new OutageLatch();

  /** `onError` hears of a Redis outage once, when it begins. */
  constructor(private readonly redis: RedisSessionPins, private readonly onError: (err: unknown, context: string) => void, now: () => number) {
    super(now);
  }

  /** Brings the session's pin from Redis; resolves either way (Redis down: this instance's own pin,
   * if it has one, else the turn is routed afresh). */
  prefetch(projectId: string, sessionId: string): void | Promise<void> {
    if (this.outage.skip()) return;
    return this.redis.get(projectId, sessionId).then(
      (pin) => {
        this.outage.ok();
        if (pin) this.restore(projectId, sessionId, pin);
      },
      (err: unknown) => this.failed(err),
    );
  }

  override set(projectId: string, sessionId: string, model: string, provider: string): void {
    super.set(projectId, sessionId, model, provider);
    if (this.outage.skip()) return;
    this.redis.set(projectId, sessionId, model, provider).then(() => this.outage.ok(), (err: unknown) => this.failed(err));
  }

  private failed(err: unknown): void {
    if (this.outage.fail()) this.onError(err, "Redis unavailable: session pins are this instance's own until it answers");
  }
}
