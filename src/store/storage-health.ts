// Whether gw can record what it serves (docs/availability.md "Storage"). The request-log and ledger
// writers report every write and their queue bounds here; a failed write or a full queue fails gw
// closed (new requests answer 503) until writes succeed again and the disk reserve is back.
import { closeSync, existsSync, openSync, renameSync, rmSync, statSync, statfsSync, writeSync } from "node:fs";
import { join } from "node:path";

/** The ballast file: deleted on the first "disk full", so queued rows and charges still fit. */
export const RESERVE_FILE = "reserve.space";

export type StorageSource = "log" | "ledger";

const LABEL: Record<StorageSource, string> = { log: "the request log", ledger: "the billing ledger" };

/** What a writer reports (log-writer.ts, billing/ledger-writer.ts). */
export interface StorageReporter {
  writeFailed(err: unknown): void;
  writeOk(): void;
  /** The writer's queue reached its bound (true) or fell back below it (false). */
  setFull(full: boolean): void;
  /** Runs `retry` right after the reserve is released, so queued rows go out at once. */
  onSpaceFreed(retry: () => void): void;
}

export interface StorageHealthOptions {
  /** Where the reserve lives; null: no reserve (tools and unit tests). */
  dataDir: string | null;
  /** Size of the reserve file; 0 disables it (`GW_STORAGE_RESERVE_MB`). */
  reserveBytes: number;
  /** How often an unhealthy gw checks whether it can recover. */
  probeMs?: number;
  onChange?: (healthy: boolean, reason: string | null) => void;
}

const errText = (err: unknown): string => {
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : String(err);
  return typeof code === "string" && !message.includes(code) ? `${code}: ${message}` : message;
};

/** SQLite's SQLITE_FULL ("database or disk is full") and the OS's ENOSPC, as either crosses threads. */
export const isNoSpace = (err: unknown): boolean => /SQLITE_FULL|ENOSPC|database or disk is full|no space left/i.test(errText(err));

const CHUNK = new Uint8Array(1024 * 1024);

export class StorageHealth {
  private readonly failing = new Map<StorageSource, string>();
  private readonly full = new Set<StorageSource>();
  private readonly retries: Array<() => void> = [];
  private waiters: Array<() => void> = [];
  private reserveMissing = false;
  private timer: ReturnType<typeof setInterval> | null = null;
  private wasHealthy = true;
  /** Requests refused with 503 because storage could not record them. */
  refused = 0;

  constructor(private readonly options: StorageHealthOptions) {}

  /** Creates the reserve when it is missing; without room for it gw starts failed closed. */
  start(): this {
    if (!this.ensureReserve()) this.reserveMissing = true;
    this.changed();
    return this;
  }

  get healthy(): boolean {
    return this.failing.size === 0 && this.full.size === 0 && !this.reserveMissing;
  }

  /** Why gw does not acknowledge requests now (readiness and the 503's message); null when healthy. */
  get reason(): string | null {
    const first = this.failing.values().next();
    if (!first.done) return first.value;
    for (const s of this.full) return `${LABEL[s]}'s write queue is full`;
    if (this.reserveMissing) return `the disk lacks room for the ${Math.round(this.options.reserveBytes / 1048576)} MiB storage reserve (GW_STORAGE_RESERVE_MB)`;
    return null;
  }

  reporter(source: StorageSource): StorageReporter {
    return {
      writeFailed: (err) => this.writeFailed(source, err),
      writeOk: () => {
        if (this.failing.delete(source)) this.changed();
      },
      setFull: (full) => {
        if (full === this.full.has(source)) return;
        if (full) this.full.add(source);
        else this.full.delete(source);
        this.changed();
      },
      onSpaceFreed: (retry) => void this.retries.push(retry),
    };
  }

  /** Resolves once gw acknowledges requests again (tests await this rather than sleeping). */
  whenHealthy(): Promise<void> {
    if (this.healthy) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** One recovery step now: re-create the reserve when the disk has room for it again. */
  probe(): void {
    if (this.reserveMissing && this.roomForReserve() && this.ensureReserve()) this.reserveMissing = false;
    this.changed();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private writeFailed(source: StorageSource, err: unknown): void {
    this.failing.set(source, `${LABEL[source]} cannot be written: ${errText(err)}`);
    if (isNoSpace(err) || !this.roomForReserve()) this.releaseReserve();
    this.changed();
  }

  /** Deletes the reserve (once) and lets the writers retry into the space it leaves. */
  private releaseReserve(): void {
    const file = this.reserveFile();
    if (!file || this.reserveMissing) return;
    this.reserveMissing = true;
    rmSync(file, { force: true });
    for (const retry of this.retries) queueMicrotask(retry);
  }

  private reserveFile(): string | null {
    const { dataDir, reserveBytes } = this.options;
    return dataDir && reserveBytes > 0 ? join(dataDir, RESERVE_FILE) : null;
  }

  /** Free space for the reserve plus an eighth of it, so re-creating it does not fill the disk. */
  private roomForReserve(): boolean {
    const { dataDir, reserveBytes } = this.options;
    if (!dataDir || reserveBytes === 0) return true;
    try {
      const s = statfsSync(dataDir);
      return s.bavail * s.bsize >= reserveBytes * 1.125;
    } catch {
      return true;
    }
  }

  /** Writes the reserve in full (through a temporary name, so a half file never counts). */
  private ensureReserve(): boolean {
    const file = this.reserveFile();
    if (!file) return true;
    const size = this.options.reserveBytes;
    if (existsSync(file) && statSync(file).size === size) return true;
    const tmp = `${file}.tmp`;
    let fd: number | null = null;
    try {
      fd = openSync(tmp, "w");
      for (let left = size; left > 0; left -= CHUNK.length) writeSync(fd, CHUNK, 0, Math.min(left, CHUNK.length));
      closeSync(fd);
      fd = null;
      renameSync(tmp, file);
      return true;
    } catch {
      if (fd !== null) closeSync(fd);
      rmSync(tmp, { force: true });
      return false;
    }
  }

  private changed(): void {
    const healthy = this.healthy;
    if (healthy !== this.wasHealthy) {
      this.wasHealthy = healthy;
      this.options.onChange?.(healthy, this.reason);
    }
    if (!healthy && !this.timer) {
      this.timer = setInterval(() => this.probe(), this.options.probeMs ?? 1000);
      this.timer.unref?.();
    }
    if (!healthy) return;
    this.stop();
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
