// The deploy files (docs/deploy.md): deploy/install.sh is valid bash, shellcheck-clean where shellcheck
// is installed, and installs into a temporary root (GW_INSTALL_ROOT) idempotently; the unit passes
// systemd-analyze where it exists; the Dockerfile keeps its promises (checked as text: no daemon here).
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../helpers/served.ts";

const SCRIPT = join(ROOT, "deploy/install.sh");
const UNIT = join(ROOT, "deploy/gw.service");
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function run(cmd: string[], env: Record<string, string> = {}) {
  const p = Bun.spawnSync(cmd, { cwd: ROOT, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env }, stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
}

/** A root with just enough of /etc for useradd --prefix, and a stand-in binary. */
function tempRoot(): { root: string; binary: string } {
  const root = mkdtempSync(join(tmpdir(), "gw-install-"));
  dirs.push(root);
  mkdirSync(join(root, "etc"));
  writeFileSync(join(root, "etc/passwd"), "root:x:0:0:root:/root:/bin/bash\n");
  writeFileSync(join(root, "etc/group"), "root:x:0:\n");
  writeFileSync(join(root, "etc/shadow"), "root:*:19000:0:99999:7:::\n", { mode: 0o600 });
  writeFileSync(join(root, "etc/gshadow"), "root:*::\n", { mode: 0o600 });
  const binary = join(root, "gw-build");
  writeFileSync(binary, "#!/bin/sh\necho one\n");
  chmodSync(binary, 0o755);
  return { root, binary };
}

describe("deploy/install.sh", () => {
  test("bash -n accepts it", () => {
    expect(run(["bash", "-n", SCRIPT])).toMatchObject({ code: 0, err: "" });
  });

  test("shellcheck finds nothing (skipped only where shellcheck is not installed)", () => {
    if (!Bun.which("shellcheck")) {
      console.warn("shellcheck not installed: deploy/install.sh not linted (apt-get install -y shellcheck)");
      return;
    }
    const r = run(["shellcheck", SCRIPT]);
    expect(r.out + r.err).toBe("");
    expect(r.code).toBe(0);
  });

  test.skipIf(process.getuid?.() !== 0)("into a temporary root: the user, the binary, the unit and a private env file; a second run upgrades the binary and keeps the env file", () => {
    const { root, binary } = tempRoot();
    const first = run(["bash", SCRIPT, binary], { GW_INSTALL_ROOT: root });
    expect(first.err).toBe("");
    expect(first.code).toBe(0);
    const passwd = readFileSync(join(root, "etc/passwd"), "utf8");
    expect(passwd).toMatch(/^gw:x:\d+:\d+::\/var\/lib\/gw:\/usr\/sbin\/nologin$/m);
    const gid = Number(/^gw:x:(\d+):/m.exec(readFileSync(join(root, "etc/group"), "utf8"))![1]);
    expect(readFileSync(join(root, "usr/local/bin/gw"), "utf8")).toContain("echo one");
    expect(statSync(join(root, "usr/local/bin/gw")).mode & 0o777).toBe(0o755);
    expect(readFileSync(join(root, "etc/systemd/system/gw.service"), "utf8")).toBe(readFileSync(UNIT, "utf8"));
    const env = join(root, "etc/gw/gw.env");
    const envStat = statSync(env);
    expect(envStat.mode & 0o777).toBe(0o640);
    expect([envStat.uid, envStat.gid]).toEqual([0, gid]);
    const text = readFileSync(env, "utf8");
    expect(text).toMatch(/^GW_ADMIN_TOKEN=[0-9a-f]{48}$/m);
    expect(first.out).toContain("admin token generated");

    writeFileSync(binary, "#!/bin/sh\necho two\n");
    const second = run(["bash", SCRIPT, binary], { GW_INSTALL_ROOT: root });
    expect(second.code).toBe(0);
    expect(second.out).toContain("kept");
    expect(readFileSync(join(root, "usr/local/bin/gw"), "utf8")).toContain("echo two");
    expect(readFileSync(env, "utf8")).toBe(text);
    expect(readFileSync(join(root, "etc/passwd"), "utf8")).toBe(passwd);
    expect(existsSync(join(root, "usr/local/bin/gw.new"))).toBe(false);
  });

  test("a missing binary: exit 1 naming it, nothing installed", () => {
    const { root } = tempRoot();
    const r = run(["bash", SCRIPT, join(root, "nope")], { GW_INSTALL_ROOT: root });
    expect(r.code).toBe(1);
    expect(r.err).toContain(`no executable gw at ${join(root, "nope")}`);
    expect(existsSync(join(root, "usr"))).toBe(false);
  });
});

describe("deploy/gw.service", () => {
  const unit = readFileSync(UNIT, "utf8");

  test("a dedicated user, its state directory, an environment file, restart on failure, hardening", () => {
    for (const line of [
      "User=gw", "Group=gw", "StateDirectory=gw", "EnvironmentFile=/etc/gw/gw.env", "Restart=on-failure",
      "NoNewPrivileges=yes", "ProtectSystem=strict", "PrivateTmp=yes", "ProtectHome=yes", "CapabilityBoundingSet=",
      "ExecStart=/usr/local/bin/gw serve --data ${STATE_DIRECTORY}",
    ]) expect(unit.split("\n")).toContain(line);
    // The JIT needs writable executable memory.
    expect(unit).not.toMatch(/^MemoryDenyWriteExecute=yes/m);
  });

  test("systemd-analyze verify has nothing to say (skipped only where systemd-analyze is not installed)", () => {
    if (!Bun.which("systemd-analyze")) {
      console.warn("systemd-analyze not installed: deploy/gw.service not verified");
      return;
    }
    // A copy whose ExecStart exists here: verify also checks that the binary is executable.
    const dir = mkdtempSync(join(tmpdir(), "gw-unit-"));
    dirs.push(dir);
    writeFileSync(join(dir, "gw.service"), unit.replace("/usr/local/bin/gw", "/bin/true"));
    const r = run(["systemd-analyze", "verify", join(dir, "gw.service")]);
    expect(r.out + r.err).toBe("");
    expect(r.code).toBe(0);
  });
});

describe("Dockerfile", () => {
  const file = readFileSync(join(ROOT, "Dockerfile"), "utf8");
  const ignore = readFileSync(join(ROOT, ".dockerignore"), "utf8").split("\n").filter((l) => l && !l.startsWith("#"));

  test("multi-stage: compiled with Bun, run on debian:bookworm-slim as a non-root user, a /data volume, HEALTHCHECK on /healthz", () => {
    const stages = [...file.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(stages).toEqual(["node:20-bookworm", "debian:bookworm-slim"]);
    expect(file).toContain("bun run scripts/build.ts");
    expect(file).toMatch(/^COPY --from=build \/src\/dist\/gw \/usr\/local\/bin\/gw$/m);
    expect(file).toMatch(/^USER gw:gw$/m);
    expect(file).toMatch(/^VOLUME \["\/data"\]$/m);
    expect(file).toMatch(/^HEALTHCHECK [^\n]*\\\n\s+CMD curl -fsS -o \/dev\/null "http:\/\/127\.0\.0\.1:\$\{PORT\}\/healthz"/m);
    expect(file).toMatch(/^ENV HOST=0\.0\.0\.0 PORT=8080 GW_DATA_DIR=\/data$/m);
    // The build's lockfile pins the same Bun the repository uses.
    expect(file).toContain(`ARG BUN_VERSION=${Bun.version}`);
  });

  test(".dockerignore leaves in what the build reads", () => {
    for (const needed of ["src", "scripts", "patches", "package.json", "bun.lock", "bunfig.toml"]) expect(ignore).not.toContain(needed);
    for (const left of [".git", "node_modules", "dist", "data"]) expect(ignore).toContain(left);
  });
});
