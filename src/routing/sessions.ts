// Session stickiness (docs/routing.md "Sessions"): a conversation stays on the model and provider of
// its last turn unless excluded or unhealthy. In memory, per project, bounded (50,000 in all, 10,000
// per project, least recently used dropped); a session unused for an hour is forgotten.
import { invalidRequest } from "../errors/gw-error.ts";

const TTL_MS = 60 * 60 * 1000;
const MAX_SESSIONS = 50_000;
const MAX_SESSIONS_PER_PROJECT = 10_000;

export interface SessionPin {
  model: string;
  provider: string;
  turns: number;
}

type Pin = SessionPin & { seen: number; projectId: string };

export class SessionStore {
  /** Least recently set first: expired pins are always at the front. */
  private pins = new Map<string, Pin>();
  /** Each project's keys in the same order, so one project's flood of session ids evicts its own
   * pins, not every other project's (stickiness is what keeps their provider prompt caches warm). */
  private byProject = new Map<string, Set<string>>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxSessions = MAX_SESSIONS,
    private readonly maxPerProject = MAX_SESSIONS_PER_PROJECT,
  ) {}

  get size(): number {
    return this.pins.size;
  }

  get(projectId: string, sessionId: string): SessionPin | undefined {
    const key = `${projectId}\u0000${sessionId}`;
    const pin = this.pins.get(key);
    if (!pin) return undefined;
    if (this.now() - pin.seen > TTL_MS) {
      this.forget(key, pin);
      return undefined;
    }
    return pin;
  }

  /** Records the model that answered the session's turn. */
  set(projectId: string, sessionId: string, model: string, provider: string): void {
    const key = `${projectId}\u0000${sessionId}`;
    const previous = this.pins.get(key);
    this.put(key, previous, projectId, model, provider, (previous?.turns ?? 0) + 1);
  }

  /** Takes a pin as another store holds it (multi-instance: Redis's, read before routing). */
  restore(projectId: string, sessionId: string, pin: SessionPin): void {
    const key = `${projectId}\u0000${sessionId}`;
    this.put(key, this.pins.get(key), projectId, pin.model, pin.provider, pin.turns);
  }

  private put(key: string, previous: Pin | undefined, projectId: string, model: string, provider: string, turns: number): void {
    // Map order is insertion order: re-inserting keeps the least recently used first, to evict.
    if (previous) this.forget(key, previous);
    const now = this.now();
    // Expired pins go as new ones arrive (amortised O(1)), so an idle process does not keep an
    // hour-old burst of session ids until the cap pushes them out.
    for (const [oldest, pin] of this.pins) {
      if (this.pins.size < this.maxSessions && now - pin.seen <= TTL_MS) break;
      this.forget(oldest, pin);
    }
    let own = this.byProject.get(projectId);
    if (!own) this.byProject.set(projectId, (own = new Set()));
    if (own.size >= this.maxPerProject) {
      const oldest = own.values().next().value!;
      this.forget(oldest, this.pins.get(oldest)!);
    }
    own.add(key);
    this.pins.set(key, { model, provider, turns, seen: now, projectId });
  }

  private forget(key: string, pin: Pin): void {
    this.pins.delete(key);
    const own = this.byProject.get(pin.projectId);
    own?.delete(key);
    if (own?.size === 0) this.byProject.delete(pin.projectId);
  }
}

export const MAX_SESSION_ID = 200;

/** The request's session id: the X-Gw-Session header, else metadata.session_id, else gw.session_id.
 * Empty means none; one longer than MAX_SESSION_ID is refused (400), not silently dropped. */
export function sessionIdOf(header: string | null, metadata: unknown, gw: unknown): string | null {
  const fromBody = (o: unknown) => (o && typeof o === "object" && typeof (o as { session_id?: unknown }).session_id === "string"
    ? ((o as { session_id: string }).session_id) : null);
  const id = header ?? fromBody(metadata) ?? fromBody(gw);
  if (id && id.length > MAX_SESSION_ID) {
    throw invalidRequest(`The session id must be at most ${MAX_SESSION_ID} characters.`, header !== null ? "X-Gw-Session" : "session_id");
  }
  return id || null;
}
