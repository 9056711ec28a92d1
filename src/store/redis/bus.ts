// The tenant invalidation bus (docs/scale-out.md): an instance that changed a project, key
// or provider key in PostgreSQL says which row on one Redis channel; the others re-read that row.
// A message lost while Redis is away is covered by the mirror's periodic full reload.
import type { RedisClient } from "bun";

export type TenantKind = "project" | "key" | "provider_key";

/** `id`: the project's id, the key's id, or the provider's name; `from`: the writing instance. */
export interface TenantChange {
  kind: TenantKind;
  project: string;
  id: string;
  from: string;
}

export const TENANT_CHANNEL = "gw:tenants";

const KINDS: ReadonlySet<string> = new Set(["project", "key", "provider_key"]);

/** A message as another instance wrote it, or null when it is not one (ignored, never thrown). */
export function parseTenantChange(text: string): TenantChange | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const { kind, project, id, from } = value as Record<string, unknown>;
  if (typeof kind !== "string" || !KINDS.has(kind) || typeof project !== "string" || typeof id !== "string" || typeof from !== "string") return null;
  return { kind: kind as TenantKind, project, id, from };
}

export interface TenantBus {
  publish(change: TenantChange): Promise<void>;
  /** Resolves once subscribed; `listener` gets every well-formed message, this instance's included.
   * After a lost connection comes back the channel is subscribed again and `resubscribed` is told
   * (what was published meanwhile is lost: the caller reloads). */
  subscribe(listener: (change: TenantChange) => void, resubscribed: () => void, onError: (err: unknown) => void): Promise<void>;
  unsubscribe(): Promise<void>;
  /** Subscribed and connected: messages arrive (else the caller polls). */
  listening(): boolean;
}

/** `redis` publishes; `subscriber` is a connection of its own (a subscribed one takes no other command). */
export function redisTenantBus(redis: RedisClient, subscriber: RedisClient): TenantBus {
  let subscribed = false;
  let receive: ((message: string) => void) | null = null;
  return {
    publish: async (change) => void (await redis.publish(TENANT_CHANNEL, JSON.stringify(change))),
    subscribe: async (listener, resubscribed, onError) => {
      const handler = (message: string) => {
        const change = parseTenantChange(message);
        if (change) listener(change);
      };
      receive = handler;
      await subscriber.subscribe(TENANT_CHANNEL, handler);
      subscribed = true;
      // Bun's client reconnects by itself but does not subscribe again; it keeps the old listener,
      // so it is dropped first (else each message would arrive twice).
      subscriber.onconnect = () => {
        if (!subscribed || receive !== handler) return;
        void subscriber.unsubscribe(TENANT_CHANNEL).catch(() => {})
          .then(() => subscriber.subscribe(TENANT_CHANNEL, handler))
          .then(resubscribed, onError);
      };
    },
    listening: () => subscribed && subscriber.connected,
    unsubscribe: async () => {
      if (!subscribed) return;
      subscribed = false;
      receive = null;
      subscriber.onconnect = null;
      await subscriber.unsubscribe(TENANT_CHANNEL);
    },
  };
}
