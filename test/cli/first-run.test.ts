// The first-run key (docs/running.md "First start"): it reads the request log and the metrics its
// requests produce, and the banner says how to make another key; that command works as printed.
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { killAll, Served } from "../helpers/served.ts";
import { runGwJson, tempDir } from "./run-gw.ts";

const data = tempDir("gw-first-run-");
afterAll(async () => {
  await killAll();
  rmSync(data, { recursive: true, force: true });
});

const get = (url: string, key: string) => fetch(url, { headers: { authorization: `Bearer ${key}` } });

describe('first start (docs/running.md "First start")', () => {
  test("the printed key reads /v1/metrics and /v1/requests; the banner's command makes another key that does too", async () => {
    const served = new Served(data);
    const [, key] = await served.waitFor(/test key (gw_test_[0-9a-z]{40})/);
    const [, command] = await served.waitFor(/Lost the key\? Make another.*\n {2}gw (keys create --project prj_[0-9a-z]+ --test --scopes \S+)\n/);
    const chat = await fetch(`${served.url}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key!}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gw-auto", messages: [{ role: "user", content: "Hello!" }] }),
    });
    expect(chat.status).toBe(200);
    const metrics = await get(`${served.url}/metrics`, key!);
    expect(metrics.status).toBe(200);
    expect(((await metrics.json()) as { object: string; requests: number }).requests).toBe(1);
    expect((await get(`${served.url}/requests`, key!)).status).toBe(200);

    const another = await runGwJson<{ key: string; mode: string; scopes: string[] }>([...command!.split(" "), "--data", data], { cwd: data });
    expect(another.mode).toBe("test");
    expect(another.scopes).toContain("requests");
    expect((await get(`${served.url}/metrics`, another.key)).status).toBe(200);
    expect(await served.terminate()).toBe(0);
  });
});
