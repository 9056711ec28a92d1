import { describe, expect, test } from "bun:test";
import { checkWebhookUrl, type Resolve, type UrlCheckOptions } from "../../../src/monitoring/webhooks/url-safety.ts";

const dns =
  (table: Record<string, string[]>): Resolve =>
  async (host) => {
    const found = table[host];
    if (found === undefined) throw new Error(`ENOTFOUND ${host}`);
    return found;
  };
const resolve = dns({
  "hooks.example.com": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"],
  "internal.example.com": ["10.1.2.3"],
  "mixed.example.com": ["93.184.216.34", "192.168.1.10"],
  "metadata.example.com": ["169.254.169.254"],
  "v6meta.example.com": ["fd00:ec2::254"],
  "localhost": ["127.0.0.1", "::1"],
  "empty.example.com": [],
  "weird.example.com": ["not-an-ip"],
});
const strict = { allowLoopback: false, resolve };
const loopbackOk = { allowLoopback: true, resolve };

async function reason(url: string, options: UrlCheckOptions = strict): Promise<string> {
  const r = await checkWebhookUrl(url, options);
  return r.ok ? "ok" : r.reason;
}

describe("checkWebhookUrl", () => {
  test("accepts https to a public name or address, returning the addresses checked", async () => {
    const r = await checkWebhookUrl("https://hooks.example.com/gw?x=1", strict);
    expect(r.ok && r.addresses).toEqual(["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"]);
    expect(await reason("https://93.184.216.34:8443/hook")).toBe("ok");
    expect(await reason("https://[2606:2800:220:1::1]/hook")).toBe("ok");
  });

  test("requires https", async () => {
    expect(await reason("http://hooks.example.com/")).toBe("the URL must use https");
    expect(await reason("ftp://hooks.example.com/")).toBe("the URL must use https");
    expect(await reason("http://hooks.example.com/", loopbackOk)).toBe("the URL must use https");
  });

  test("refuses what is not a URL, and credentials in it", async () => {
    expect(await reason("hooks.example.com/x")).toBe("not a valid URL");
    expect(await reason("")).toBe("not a valid URL");
    expect(await reason("https://user:pw@hooks.example.com/")).toBe("the URL must not carry credentials");
  });

  test("loopback only when allowed, then over http too", async () => {
    expect(await reason("http://127.0.0.1:9000/hook")).toContain("loopback");
    expect(await reason("https://[::1]/hook")).toContain("loopback");
    expect(await reason("http://localhost:9000/")).toContain("loopback");
    expect(await reason("http://127.0.0.1:9000/hook", loopbackOk)).toBe("ok");
    expect(await reason("http://127.5.6.7/hook", loopbackOk)).toBe("ok");
    expect(await reason("http://[::1]:9000/hook", loopbackOk)).toBe("ok");
    expect(await reason("http://localhost:9000/", loopbackOk)).toBe("ok");
    expect(await reason("https://localhost:9000/", loopbackOk)).toBe("ok");
  });

  test("refuses private, CGNAT, link-local, unique-local, unspecified, multicast and reserved literals", async () => {
    const cases: Array<[string, string]> = [
      ["https://10.0.0.1/", "private"],
      ["https://172.16.0.1/", "private"],
      ["https://172.31.255.255/", "private"],
      ["https://192.168.0.1/", "private"],
      ["https://100.64.0.1/", "CGNAT"],
      ["https://100.127.255.254/", "CGNAT"],
      ["https://169.254.1.1/", "link-local"],
      ["https://[fe80::1]/", "link-local"],
      ["https://[fc00::1]/", "unique-local"],
      ["https://[fd12:3456::1]/", "unique-local"],
      ["https://0.0.0.0/", "unspecified"],
      ["https://[::]/", "unspecified"],
      ["https://224.0.0.1/", "multicast"],
      ["https://[ff02::1]/", "multicast"],
      ["https://255.255.255.255/", "reserved"],
    ];
    for (const [url, why] of cases) expect(await reason(url, loopbackOk)).toContain(why);
  });

  test("neighbours of refused ranges are fine", async () => {
    for (const url of ["https://172.32.0.1/", "https://100.128.0.1/", "https://11.0.0.1/", "https://192.169.0.1/", "https://[fec0::1]/"]) {
      expect(await reason(url)).toBe("ok");
    }
  });

  test("refuses the cloud metadata addresses by name", async () => {
    expect(await reason("https://169.254.169.254/latest/meta-data")).toBe("169.254.169.254 is a cloud metadata address");
    expect(await reason("https://[fd00:ec2::254]/")).toBe("fd00:ec2::254 is a cloud metadata address");
  });

  test("catches IPv4 hidden in other spellings: mapped IPv6, NAT64, decimal and hex forms", async () => {
    expect(await reason("https://[::ffff:10.0.0.1]/")).toContain("private");
    expect(await reason("https://[::ffff:a9fe:a9fe]/")).toContain("metadata");
    expect(await reason("https://[64:ff9b::a00:1]/")).toContain("private");
    expect(await reason("https://[64:ff9b::5db8:d822]/")).toBe("ok");
    expect(await reason("https://2852039166/")).toContain("metadata"); // 169.254.169.254 as one number
    expect(await reason("https://0x7f.1/")).toContain("loopback");
    expect(await reason("https://[::ffff:127.0.0.1]/")).toContain("loopback");
  });

  test("refuses names that resolve to refused addresses, naming the address", async () => {
    expect(await reason("https://internal.example.com/")).toBe("internal.example.com resolves to 10.1.2.3, which is a private address");
    expect(await reason("https://mixed.example.com/")).toContain("192.168.1.10");
    expect(await reason("https://metadata.example.com/")).toContain("cloud metadata");
    expect(await reason("https://v6meta.example.com/")).toContain("cloud metadata");
  });

  test("refuses names that do not resolve or resolve to nonsense", async () => {
    expect(await reason("https://nowhere.example.com/")).toBe("nowhere.example.com does not resolve");
    expect(await reason("https://empty.example.com/")).toBe("empty.example.com does not resolve");
    expect(await reason("https://weird.example.com/")).toContain("not an address");
  });

  test("the default resolver asks the system (localhost resolves to loopback)", async () => {
    expect(await reason("http://localhost:1/", { allowLoopback: false })).toContain("loopback");
    expect(await reason("http://localhost:1/", { allowLoopback: true })).toBe("ok");
  });
});
