// Session stickiness behind one interface (docs/routing.md "Sessions"): the in-process SessionStore
// (routing/sessions.ts, bounded LRU) and the shared one on Redis (store/redis/session-pins.ts).

export interface SessionPin {
  model: string;
  provider: string;
  turns: number;
}

/** A session unused for this long is forgotten, everywhere. */
export const SESSION_TTL_MS = 60 * 60 * 1000;

type Maybe<T> = T | Promise<T>;

export interface SessionPinStore {
  get(projectId: string, sessionId: string): Maybe<SessionPin | undefined>;
  /** Records the model that answered the session's turn (turns counts up). */
  set(projectId: string, sessionId: string, model: string, provider: string): Maybe<void>;
}
