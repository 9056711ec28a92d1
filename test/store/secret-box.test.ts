// Secrets at rest (issue 4 item 7): AES-256-GCM sealing, the key from GW_SECRET_KEY or a key file
// generated once in the data directory with mode 0600, also when several processes start at once.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSecretKey, SECRET_KEY_FILE, secretBox } from "../../src/lib/secret-box.ts";

const dirs: string[] = [];
const newDir = () => {
  const d = mkdtempSync(join(tmpdir(), "gw-secret-"));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("secretBox", () => {
  const box = secretBox(loadSecretKey(newDir(), "operator-secret"));

  test("seal then open gives the secret back; the sealed text does not contain it and differs each time", () => {
    const sealed = box.seal("sk-proj-very-secret");
    expect(sealed.startsWith("v1.")).toBe(true);
    expect(sealed).not.toContain("sk-proj-very-secret");
    expect(box.seal("sk-proj-very-secret")).not.toBe(sealed);
    expect(box.open(sealed)).toBe("sk-proj-very-secret");
  });

  test("a changed byte or another key fails to open, never yields garbage", () => {
    const sealed = box.seal("sk-x");
    const raw = Buffer.from(sealed.slice(3), "base64");
    raw[raw.length - 1]! ^= 1;
    expect(() => box.open(`v1.${raw.toString("base64")}`)).toThrow();
    expect(() => secretBox(loadSecretKey(newDir(), "another-secret")).open(sealed)).toThrow();
    expect(() => box.open("plain-text")).toThrow();
  });

  test("GW_SECRET_KEY: the same string opens what it sealed, in another data directory", () => {
    const sealed = box.seal("sk-y");
    expect(secretBox(loadSecretKey(newDir(), "operator-secret")).open(sealed)).toBe("sk-y");
  });
});

describe("generated key file", () => {
  test("made once with mode 0600 and reused", () => {
    const dir = newDir();
    const a = loadSecretKey(dir, null);
    expect(statSync(join(dir, SECRET_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(loadSecretKey(dir, null).equals(a)).toBe(true);
    expect(a).toHaveLength(32);
  });

  test("six processes starting at once all end up with the one same key", async () => {
    const dir = newDir();
    const script = `import { loadSecretKey } from ${JSON.stringify(join(import.meta.dir, "../../src/lib/secret-box.ts"))}; console.log(loadSecretKey(${JSON.stringify(dir)}, null).toString("hex"));`;
    const procs = Array.from({ length: 6 }, () => Bun.spawn(["bun", "-e", script], { stdout: "pipe", stderr: "pipe" }));
    const outs = await Promise.all(procs.map((p) => new Response(p.stdout).text()));
    expect(await Promise.all(procs.map((p) => p.exited))).toEqual([0, 0, 0, 0, 0, 0]);
    const keys = new Set(outs.map((o) => o.trim()));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toBe(Buffer.from(readFileSync(join(dir, SECRET_KEY_FILE), "utf8").trim(), "base64").toString("hex"));
    expect(readdirSync(dir)).toEqual([SECRET_KEY_FILE]);
  });
});
