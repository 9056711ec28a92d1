// A scripted OpenID Connect provider on 127.0.0.1 (docs/dashboard.md "Single sign-on (OIDC)"):
// discovery, an authorize endpoint that redirects straight back with a code, a token endpoint that
// checks the client secret, redirect_uri and PKCE verifier, and a JWKS with a generated RSA key.
// `next` shapes the id_token of the next sign-in (claims overridden, or signed by another key).

export interface ScriptedOidc {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The e-mail the next sign-in reports, and claim overrides for its id_token. */
  next: { email: string; claims?: Record<string, unknown>; foreignKey?: boolean; verifierOverride?: string };
  /** Token requests seen, with whether each was accepted. */
  tokenCalls: Array<{ ok: boolean; reason: string | null }>;
  authorizeCalls: URLSearchParams[];
  stop(): Promise<void>;
}

interface Grant {
  clientId: string;
  redirectUri: string;
  challenge: string;
  nonce: string;
  email: string;
  claims: Record<string, unknown>;
  foreignKey: boolean;
}

const b64 = (bytes: ArrayBuffer | Uint8Array): string => Buffer.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes)).toString("base64url");
const rsa = { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" };

async function sign(key: CryptoKey, kid: string, claims: Record<string, unknown>): Promise<string> {
  const head = b64(new TextEncoder().encode(JSON.stringify({ alg: "RS256", typ: "JWT", kid })));
  const body = b64(new TextEncoder().encode(JSON.stringify(claims)));
  const sig = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", key, new TextEncoder().encode(`${head}.${body}`));
  return `${head}.${body}.${b64(sig)}`;
}

export async function startScriptedOidc(options: { clientId?: string; clientSecret?: string; now?: () => number } = {}): Promise<ScriptedOidc> {
  const keys = (await crypto.subtle.generateKey(rsa, true, ["sign", "verify"])) as CryptoKeyPair;
  const foreign = (await crypto.subtle.generateKey(rsa, true, ["sign", "verify"])) as CryptoKeyPair;
  const jwk = await crypto.subtle.exportKey("jwk", keys.publicKey);
  const kid = "scripted-1";
  const grants = new Map<string, Grant>();
  const now = options.now ?? (() => Date.now());
  let counter = 0;
  const state: Omit<ScriptedOidc, "issuer" | "stop"> = {
    clientId: options.clientId ?? "gw-dashboard",
    clientSecret: options.clientSecret ?? "scripted-client-secret-123",
    next: { email: "alice@example.com" },
    tokenCalls: [],
    authorizeCalls: [],
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req): Promise<Response> {
      const url = new URL(req.url);
      const issuer: string = `http://${url.host}`;
      if (url.pathname === "/.well-known/openid-configuration") {
        return Response.json({
          issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/jwks`,
          response_types_supported: ["code"], id_token_signing_alg_values_supported: ["RS256"], code_challenge_methods_supported: ["S256"],
        });
      }
      if (url.pathname === "/jwks") return Response.json({ keys: [{ ...jwk, kid, use: "sig", alg: "RS256" }] });
      if (url.pathname === "/authorize") {
        const q = url.searchParams;
        state.authorizeCalls.push(q);
        const code = `code-${++counter}`;
        grants.set(code, {
          clientId: q.get("client_id") ?? "", redirectUri: q.get("redirect_uri") ?? "", challenge: q.get("code_challenge") ?? "",
          nonce: q.get("nonce") ?? "", email: state.next.email, claims: state.next.claims ?? {}, foreignKey: state.next.foreignKey ?? false,
        });
        const back = new URL(q.get("redirect_uri") ?? "");
        back.searchParams.set("code", code);
        back.searchParams.set("state", q.get("state") ?? "");
        return new Response(null, { status: 302, headers: { location: back.toString() } });
      }
      if (url.pathname === "/token" && req.method === "POST") {
        const form = new URLSearchParams(await req.text());
        const refuse = (reason: string) => {
          state.tokenCalls.push({ ok: false, reason });
          return Response.json({ error: "invalid_grant", error_description: reason }, { status: 400 });
        };
        const grant = grants.get(form.get("code") ?? "");
        grants.delete(form.get("code") ?? "");
        if (!grant) return refuse("unknown code");
        if (form.get("grant_type") !== "authorization_code") return refuse("grant_type");
        if (form.get("client_id") !== state.clientId || form.get("client_secret") !== state.clientSecret) return refuse("client");
        if (form.get("redirect_uri") !== grant.redirectUri) return refuse("redirect_uri");
        const verifier = state.next.verifierOverride ?? form.get("code_verifier") ?? "";
        const challenge = new Bun.CryptoHasher("sha256").update(verifier).digest("base64url");
        if (challenge !== grant.challenge) return refuse("pkce");
        state.tokenCalls.push({ ok: true, reason: null });
        const iat = Math.floor(now() / 1000);
        const claims = { iss: issuer, sub: `sub-${grant.email}`, aud: grant.clientId, iat, exp: iat + 300, nonce: grant.nonce, email: grant.email, email_verified: true, ...grant.claims };
        const idToken = await sign(grant.foreignKey ? foreign.privateKey : keys.privateKey, kid, claims);
        return Response.json({ access_token: "scripted-access", token_type: "Bearer", expires_in: 300, id_token: idToken });
      }
      return new Response("not found", { status: 404 });
    },
  });
  return Object.assign(state, {
    issuer: `http://127.0.0.1:${server.port}`,
    async stop() {
      await server.stop(true);
    },
  });
}
