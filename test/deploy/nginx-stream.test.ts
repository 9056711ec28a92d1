// deploy/nginx.conf, the file docs/deploy.md tells operators to install, run by Debian's nginx on loopback
// (TLS included) in front of a real gw: a stream's chunks reach the client one by one as the upstream
// sends them, each seen before the next is sent. Skipped only when no nginx binary can be found.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { freePorts, ROOT } from "../helpers/served.ts";
import { startTestGw, type TestGw } from "../helpers/test-gw.ts";
import { waitFor } from "../helpers/wait-for.ts";

const NGINX = Bun.which("nginx") ?? ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/local/nginx/sbin/nginx"].find((p) => existsSync(p)) ?? null;
if (!NGINX) console.warn("nginx not found (PATH, /usr/sbin): the nginx streaming test is skipped. Install it: apt-get install -y nginx-light");

const WORDS = ["alpha", "bravo", "charlie", "juliett", "kilo", "oscar"];
const encoder = new TextEncoder();
const sse = (delta: Record<string, unknown>, finish: string | null, usage?: Record<string, number>) =>
  `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`;

/** The upstream: one stream whose chunks the test sends one at a time. */
function pacedUpstream() {
  let controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  const opened = Promise.withResolvers<void>();
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 60,
    fetch: () => new Response(new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
        opened.resolve();
      },
    }), { headers: { "content-type": "text/event-stream" } }),
  });
  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    opened: opened.promise,
    send: (text: string) => controller!.enqueue(encoder.encode(text)),
    end: () => controller!.close(),
    stop: () => server.stop(true),
  };
}

/** deploy/nginx.conf with its addresses, ports and certificate pointed at this test's; each
 * replaced line must be there exactly once, so the file and the test cannot drift apart. */
function localConfig(gwPort: number, httpPort: number, httpsPort: number, dir: string): string {
  let text = readFileSync(join(ROOT, "deploy/nginx.conf"), "utf8");
  const swap = (from: string, to: string) => {
    expect(text.split(from).length - 1).toBe(1);
    text = text.replace(from, to);
  };
  swap("server 127.0.0.1:8080;", `server 127.0.0.1:${gwPort};`);
  swap("listen 80;", `listen 127.0.0.1:${httpPort};`);
  swap("listen 443 ssl http2;", `listen 127.0.0.1:${httpsPort} ssl http2;`);
  swap("/etc/letsencrypt/live/gw.example.com/fullchain.pem", join(dir, "cert.pem"));
  swap("/etc/letsencrypt/live/gw.example.com/privkey.pem", join(dir, "key.pem"));
  // Loopback IPv4 only: the machine may have no IPv6.
  return text.split("\n").filter((l) => !l.includes("listen [::]")).join("\n");
}

describe.skipIf(!NGINX)("nginx in front of gw (docs/deploy.md \"TLS with nginx\")", () => {
  let dir: string;
  let gw: TestGw;
  let up: ReturnType<typeof pacedUpstream>;
  let nginx: Subprocess;
  let origin: string;
  let plain: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "gw-nginx-"));
    // nginx's workers run as nobody when started by root: they must reach the temp directories.
    chmodSync(dir, 0o755);
    up = pacedUpstream();
    gw = await startTestGw({ OPENAI_API_KEY: "sk-nginx", OPENAI_BASE_URL: up.url, GW_SEMANTIC_EMBEDDER: "off" });
    const gwPort = Number(new URL(gw.url).port);
    const cert = Bun.spawnSync(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=gw.example.com",
      "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")], { stdout: "pipe", stderr: "pipe" });
    expect(cert.exitCode).toBe(0);
    const [httpPort, httpsPort] = freePorts(2) as [number, number];
    writeFileSync(join(dir, "gw.conf"), localConfig(gwPort, httpPort, httpsPort, dir));
    writeFileSync(join(dir, "nginx.conf"), [
      "daemon off;", "worker_processes 1;", `pid ${dir}/nginx.pid;`, `error_log ${dir}/error.log warn;`,
      "events { worker_connections 64; }",
      "http {", "  access_log off;",
      ...["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((t) => `  ${t}_temp_path ${dir}/${t}_temp;`),
      `  include ${dir}/gw.conf;`, "}",
    ].join("\n"));
    nginx = Bun.spawn([NGINX!, "-p", dir, "-e", join(dir, "error.log"), "-c", join(dir, "nginx.conf")], { stdout: "pipe", stderr: "pipe" });
    origin = `https://127.0.0.1:${httpsPort}`;
    plain = `http://127.0.0.1:${httpPort}`;
    await waitFor(async () => {
      if (nginx.exitCode !== null) throw new Error(`nginx exited ${nginx.exitCode}: ${existsSync(join(dir, "error.log")) ? readFileSync(join(dir, "error.log"), "utf8") : ""}`);
      return (await fetch(`${origin}/healthz`, { tls: { rejectUnauthorized: false } }).catch(() => null))?.status === 200;
    }, { timeoutMs: 20_000, what: "nginx to proxy /healthz" });
  });

  afterAll(async () => {
    nginx?.kill("SIGTERM");
    await nginx?.exited;
    up?.stop();
    await gw?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("the HTTP server redirects to HTTPS; /readyz passes through", async () => {
    const redirect = await fetch(`${plain}/v1/models`, { redirect: "manual" });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get("location")).toBe("https://127.0.0.1/v1/models");
    const res = await fetch(`${origin}/readyz`, { tls: { rejectUnauthorized: false } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ready" });
  });

  test("each chunk arrives through nginx before the upstream sends the next", async () => {
    // gw answers once the upstream's first chunk is in (before it, a failure can still fall back).
    const answer = fetch(`${origin}/v1/chat/completions`, {
      method: "POST",
      tls: { rejectUnauthorized: false },
      headers: { "content-type": "application/json", authorization: `Bearer ${gw.key({ mode: "live" })}`, "x-gw-cache": "off" },
      body: JSON.stringify({ model: "openai/gpt-4o-mini", stream: true, messages: [{ role: "user", content: "spell it out" }] }),
    });
    await up.opened;
    up.send(sse({ role: "assistant", content: WORDS[0] }, null));
    const res = await answer;
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/event-stream");
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let seen = "";
    /** Reads until `word` has arrived; a stream held back by a buffer never shows it. */
    const readUntil = async (word: string) => {
      const deadline = Bun.sleep(15_000).then(() => null);
      while (!seen.includes(word)) {
        const next = await Promise.race([reader.read(), deadline]);
        if (next === null) throw new Error(`"${word}" was sent upstream but did not come through nginx within 15 s (buffered?). Seen: ${seen}`);
        if (next.done) throw new Error(`the stream ended before "${word}": ${seen}`);
        seen += decoder.decode(next.value, { stream: true });
      }
    };
    for (const [i, word] of WORDS.entries()) {
      if (i > 0) up.send(sse({ content: ` ${word}` }, null));
      await readUntil(word);
      // Nothing later has been sent yet, so nothing later can have arrived.
      for (const later of WORDS.slice(i + 1)) expect(seen).not.toContain(later);
    }
    up.send(sse({}, "stop", { prompt_tokens: 3, completion_tokens: WORDS.length, total_tokens: 3 + WORDS.length }));
    up.send("data: [DONE]\n\n");
    up.end();
    await readUntil("data: [DONE]");
    expect(seen).toContain('"finish_reason":"stop"');
  });
});
