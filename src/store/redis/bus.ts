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
  /** Resolves once subscribed; `listener` gets every well-formed message, this instance's included. */
  subscribe(listener: (change: TenantChange) => void): Promise<void>;
  unsubscribe(): Promise<void>;
}

/** `redis` publishes; `subscriber` is a connection of its own (a subscribed one takes no other command). */
export function redisTenantBus(redis: RedisClient, subscriber: RedisClient): TenantBus {
  let subscribed = false;
  return {
    publish: async (change) => void (await redis.publish(TENANT_CHANNEL, JSON.stringify(change))),
    subscribe: async (listener) => {
      await subscriber.subscribe(TENANT_CHANNEL, (message) => {
        const change = parseTenantChange(message);
        if (change) listener(change);
      });
      subscribed = true;
    },
    unsubscribe: async () => {
      if (!subscribed) return;
      subscribed = false;
      await subscriber.unsubscribe(TENANT_CHANNEL);
    },
  };
}
