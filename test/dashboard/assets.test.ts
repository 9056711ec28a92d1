// The dashboard's pages and assets through app.handle (docs/dashboard.md "Building the dashboard"):
// every page path answers index.html uncached, assets are immutable and gzipped when accepted, with
// ETag/304 and HEAD; the first load stays within 60 KB gzipped JS and 10 KB gzipped CSS.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { gunzipSync } from "node:zlib";
import { assetPaths, findAsset } from "../../src/dashboard/assets.ts";
import { PAGE_PATHS, SESSION_HINT } from "../../src/dashboard/pages-route.ts";
import { createApp, type App } from "../../src/http/app.ts";
import { startTestGw, type TestGw } from "../helpers/test-gw.ts";

let gw: TestGw;
let app: App;
const get = (path: string, headers: Record<string, string> = {}, method = "GET") =>
  app.handle(new Request(`http://localhost${path}`, { method, headers }));

beforeAll(async () => {
  gw = await startTestGw();
  app = createApp(gw.deps);
});
afterAll(() => gw.stop());

/** The asset paths index.html loads: its one script and its one stylesheet. */
function loaded(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
}

describe("pages", () => {
  test("every page path answers the same index.html, not cached", async () => {
    const paths = PAGE_PATHS.map((p) => p.replace(":request_id", "req_0123abc"));
    const bodies = new Set<string>();
    for (const p of paths) {
      const res = await get(`${p}?project=prj_x`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(res.headers.get("x-gw-api-version")).toBeTruthy();
      bodies.add(await res.text());
    }
    expect(bodies.size).toBe(1);
    const html = [...bodies][0]!;
    expect(html).toContain('<div id="app"></div>');
    const assets = loaded(html);
    expect(assets.filter((a) => a.endsWith(".js"))).toHaveLength(1);
    expect(assets.filter((a) => a.endsWith(".css"))).toHaveLength(1);
  });

  test("the page is marked when the browser sent a session cookie, so the app asks for its session only then", async () => {
    expect(await (await get("/")).text()).not.toContain(SESSION_HINT);
    expect(await (await get("/", { cookie: "other=1; gw_session=" })).text()).not.toContain(SESSION_HINT);
    const marked = await (await get("/cache", { cookie: "other=1; gw_session=abc" })).text();
    expect(marked).toContain(`${SESSION_HINT}</head>`);
  });

  test("no inline script or style, nothing from another origin", async () => {
    const html = await (await get("/")).text();
    for (const tag of html.match(/<script\b[^>]*>/g) ?? []) expect(tag).toContain('src="/assets/');
    expect(html).not.toMatch(/<style\b|\sstyle=|\son\w+=/i);
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
  });

  test("HEAD answers the headers without a body; other paths keep the 404 envelope", async () => {
    const head = await get("/requests", {}, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await head.text()).toBe("");
    for (const p of ["/nope", "/requests/a/b", "/status.xml"]) {
      const res = await get(p);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("not_found");
    }
  });
});

describe("assets", () => {
  test("gzip when accepted, raw otherwise; immutable; right content type", async () => {
    const html = await (await get("/")).text();
    for (const path of loaded(html)) {
      const asset = findAsset(path)!;
      expect(asset).toBeDefined();
      const gz = await get(path, { "accept-encoding": "gzip, deflate, br" });
      expect(gz.status).toBe(200);
      expect(gz.headers.get("content-encoding")).toBe("gzip");
      expect(gz.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(gz.headers.get("vary")).toBe("Accept-Encoding");
      expect(gz.headers.get("content-type")).toStartWith(path.endsWith(".js") ? "text/javascript" : "text/css");
      const body = new Uint8Array(await gz.arrayBuffer());
      expect(Buffer.from(gunzipSync(body)).equals(Buffer.from(asset.raw))).toBe(true);
      const raw = await get(path);
      expect(raw.headers.get("content-encoding")).toBeNull();
      expect(Buffer.from(await raw.arrayBuffer()).equals(Buffer.from(asset.raw))).toBe(true);
      expect(raw.headers.get("etag")).not.toBe(gz.headers.get("etag"));
    }
  });

  test("If-None-Match with either representation's ETag answers 304; HEAD has no body", async () => {
    const path = assetPaths().find((p) => p.endsWith(".js"))!;
    const first = await get(path, { "accept-encoding": "gzip" });
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]+-gz"$/);
    for (const tag of [etag, etag.replace("-gz", ""), `W/${etag}`]) {
      const again = await get(path, { "accept-encoding": "gzip", "if-none-match": tag });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe("");
    }
    expect((await get(path, { "if-none-match": '"other"' })).status).toBe(200);
    const head = await get(path, { "accept-encoding": "gzip" }, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers.get("content-encoding")).toBe("gzip");
    expect(await head.text()).toBe("");
  });

  test("CSS imported by TSX files lands in the one stylesheet: the base styles and uPlot's, once", async () => {
    const css = assetPaths().filter((p) => p.endsWith(".css"));
    expect(css).toHaveLength(1);
    const text = Buffer.from(findAsset(css[0]!)!.raw).toString("utf8");
    expect(text).toContain(".signin-card{");
    expect(text.split(".uplot,.uplot *").length - 1).toBe(1);
  });

  test("an unknown asset answers the 404 envelope", async () => {
    const res = await get("/assets/index-00000000.js", { "accept-encoding": "gzip" });
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("not_found");
    expect(res.headers.get("cache-control")).toBeNull();
  });

  test("the first load is within 60 KB gzipped JS and 10 KB gzipped CSS (issue 17's budget)", async () => {
    const html = await (await get("/")).text();
    let js = 0;
    let css = 0;
    for (const path of loaded(html)) {
      const size = findAsset(path)!.gzip.length;
      if (path.endsWith(".js")) js += size;
      else css += size;
    }
    expect(js).toBeGreaterThan(0);
    expect(js).toBeLessThanOrEqual(60_000);
    expect(css).toBeLessThanOrEqual(10_000);
  });
});
