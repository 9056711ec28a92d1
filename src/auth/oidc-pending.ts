// The multi-instance mode's pending SSO sign-ins (docs/scale-out.md): in Redis under a hash of the
// state, for the state's ten minutes and one use (GETDEL), so the identity provider may send the
// browser back to any instance. Every call is bounded; a failure throws (the flow answers it).
import type { RedisClient } from "bun";
import { sha256Hex } from "../lib/hash.ts";
import { type Pending, type PendingSignIns, SSO_STATE_TTL_MS } from "./oidc-flow.ts";

const TIMEOUT_MS = 1_000;

async function within<T>(what: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis gave no answer within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
  });
  try {
    return await Promise.race([what, late]);
  } finally {
    clearTimeout(timer);
  }
}

function parsePending(text: unknown): Pending | null {
  if (typeof text !== "string") return null;
  try {
    const p: unknown = JSON.parse(text);
    if (typeof p !== "object" || p === null) return null;
    const { projectId, verifier, nonce, redirectUri, createdAt } = p as Record<string, unknown>;
    if (typeof projectId !== "string" || typeof verifier !== "string" || typeof nonce !== "string" || typeof redirectUri !== "string" || typeof createdAt !== "number") return null;
    return { projectId, verifier, nonce, redirectUri, createdAt };
  } catch {
    return null;
  }
}

export function redisPendingSignIns(redis: RedisClient, prefix = "gw:"): PendingSignIns {
  const key = (state: string) => `${prefix}sso:${sha256Hex(`gw-sso-state:${state}`)}`;
  return {
    remember: async (state, p) => void (await within(redis.send("SET", [key(state), JSON.stringify(p), "PX", String(SSO_STATE_TTL_MS)]))),
    take: async (state) => parsePending(await within(redis.send("GETDEL", [key(state)]))),
  };
}
