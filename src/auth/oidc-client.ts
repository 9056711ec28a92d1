// The OpenID Connect relying party (docs/dashboard.md "Single sign-on (OIDC)"): discovery and JWKS
// (cached), the code exchange (client_secret_post, PKCE verifier) and the id_token check: RS256
// signature against the issuer's keys, iss, aud, exp, nonce. Every outbound call has a timeout.
import type { Clock } from "../lib/clock.ts";

/** Why a sign-in failed, in a few words: what `/?sso_error=` carries. */
export class SsoFailure extends Error {
  constructor(readonly reason: string, detail?: string) {
    super(detail ?? reason);
    this.name = "SsoFailure";
  }
}

export interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
}

export interface IdClaims {
  iss: string;
  aud: string | string[];
  exp: number;
  nonce?: string;
  email?: string;
  email_verified?: boolean | string;
  azp?: string;
}

interface Jwk {
  kty?: string;
  kid?: string;
  use?: string;
  n?: string;
  e?: string;
}

const FETCH_TIMEOUT_MS = 5_000;
const CACHE_MS = 60 * 60 * 1000;
/** An unknown `kid` refetches the keys (rotation), at most this often. */
const JWKS_REFETCH_MS = 30_000;
const MAX_DOC_BYTES = 256 * 1024;
/** Clock skew allowed on exp. */
const SKEW_S = 30;
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

const b64url = (s: string): Uint8Array<ArrayBuffer> => Uint8Array.from(Buffer.from(s, "base64url"));

function safeUrl(value: unknown, what: string): string {
  if (typeof value !== "string") throw new SsoFailure("provider", `discovery lacks ${what}`);
  const url = new URL(value);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && LOOPBACK.has(url.hostname))) throw new SsoFailure("provider", `${what} is not https`);
  return value;
}

async function fetchJson(url: string, init: RequestInit = {}): Promise<Record<string, unknown>> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, redirect: "error", signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  } catch {
    throw new SsoFailure("provider", `cannot reach ${new URL(url).origin}`);
  }
  const text = await res.text();
  if (text.length > MAX_DOC_BYTES) throw new SsoFailure("provider", "answer too large");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  if (typeof body !== "object" || body === null) throw new SsoFailure("provider", `non-JSON answer (${res.status})`);
  if (!res.ok) throw new SsoFailure(res.status === 400 || res.status === 401 ? "token_exchange" : "provider", `status ${res.status}`);
  return body as Record<string, unknown>;
}

export class OidcClient {
  private readonly discoveries = new Map<string, { doc: Discovery; at: number }>();
  private readonly jwks = new Map<string, { keys: Jwk[]; at: number }>();
  constructor(private readonly clock: Clock) {}

  async discover(issuer: string): Promise<Discovery> {
    const hit = this.discoveries.get(issuer);
    if (hit && this.clock.now() - hit.at < CACHE_MS) return hit.doc;
    const body = await fetchJson(`${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`);
    if (body.issuer !== issuer) throw new SsoFailure("provider", "discovery names another issuer");
    const doc: Discovery = {
      issuer,
      authorization_endpoint: safeUrl(body.authorization_endpoint, "authorization_endpoint"),
      token_endpoint: safeUrl(body.token_endpoint, "token_endpoint"),
      jwks_uri: safeUrl(body.jwks_uri, "jwks_uri"),
    };
    this.discoveries.set(issuer, { doc, at: this.clock.now() });
    return doc;
  }

  /** Trades the code for tokens (client_secret_post with the PKCE verifier); returns the id_token. */
  async exchange(doc: Discovery, input: { code: string; redirectUri: string; clientId: string; clientSecret: string; verifier: string }): Promise<string> {
    const form = new URLSearchParams({
      grant_type: "authorization_code", code: input.code, redirect_uri: input.redirectUri,
      client_id: input.clientId, client_secret: input.clientSecret, code_verifier: input.verifier,
    });
    const body = await fetchJson(doc.token_endpoint, {
      method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" }, body: form.toString(),
    });
    if (typeof body.id_token !== "string") throw new SsoFailure("token_exchange", "no id_token");
    return body.id_token;
  }

  /** The id_token's claims once its RS256 signature, iss, aud, exp and nonce hold. */
  async verify(doc: Discovery, idToken: string, expected: { clientId: string; nonce: string }): Promise<IdClaims> {
    const parts = idToken.split(".");
    if (parts.length !== 3) throw new SsoFailure("id_token", "not a JWS");
    const [h, p, sig] = parts as [string, string, string];
    const header = parseJson(h);
    if (header.alg !== "RS256") throw new SsoFailure("id_token", "alg is not RS256");
    const key = await this.keyFor(doc, typeof header.kid === "string" ? header.kid : null);
    const data = new TextEncoder().encode(`${h}.${p}`);
    const ok = await crypto.subtle.verify("RSASSA-PKCS1-v1_5", key, b64url(sig), data);
    if (!ok) throw new SsoFailure("id_token", "bad signature");
    const claims = parseJson(p) as Partial<IdClaims>;
    if (claims.iss !== doc.issuer) throw new SsoFailure("issuer");
    const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!aud.includes(expected.clientId) || (aud.length > 1 && claims.azp !== expected.clientId)) throw new SsoFailure("audience");
    if (typeof claims.exp !== "number" || claims.exp + SKEW_S <= this.clock.now() / 1000) throw new SsoFailure("expired");
    if (claims.nonce !== expected.nonce) throw new SsoFailure("nonce");
    return claims as IdClaims;
  }

  private async keyFor(doc: Discovery, kid: string | null): Promise<CryptoKey> {
    let cached = this.jwks.get(doc.jwks_uri);
    const now = this.clock.now();
    const pick = (keys: Jwk[]) => keys.find((k) => k.kty === "RSA" && (kid === null ? true : k.kid === kid) && (k.use === undefined || k.use === "sig"));
    if (!cached || now - cached.at >= CACHE_MS || (!pick(cached.keys) && now - cached.at >= JWKS_REFETCH_MS)) {
      const body = await fetchJson(doc.jwks_uri);
      cached = { keys: Array.isArray(body.keys) ? (body.keys as Jwk[]) : [], at: now };
      this.jwks.set(doc.jwks_uri, cached);
    }
    const jwk = pick(cached.keys);
    if (!jwk) throw new SsoFailure("id_token", "no matching signing key");
    try {
      return await crypto.subtle.importKey("jwk", { kty: "RSA", n: jwk.n, e: jwk.e }, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, ["verify"]);
    } catch {
      throw new SsoFailure("id_token", "unusable signing key");
    }
  }
}

function parseJson(segment: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, "base64url").toString("utf8"));
    if (typeof value === "object" && value !== null) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new SsoFailure("id_token", "malformed segment");
}
