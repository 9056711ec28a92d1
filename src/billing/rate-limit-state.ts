// Rate-limit state across restarts (docs/rate-limits.md "Restarts"): cells still filling are saved to
// <data>/rate-limits.json every few seconds and at a clean stop, and read back at start. A missing
// or unreadable file starts empty: limits are never stricter than saved.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Clock } from "../lib/clock.ts";
import type { RateLimiter, SavedCell } from "./rate-limit.ts";

export const RATE_LIMIT_FILE = "rate-limits.json";
const SAVE_EVERY_MS = 5_000;

const isSaved = (v: unknown): v is SavedCell =>
  typeof v === "object" && v !== null && typeof (v as SavedCell).id === "string"
  && Number.isFinite((v as SavedCell).reqTat) && Number.isFinite((v as SavedCell).tokTat);

/** Reads the saved cells into the limiter; returns how many were taken back. */
export function loadRateLimits(limiter: RateLimiter, dataDir: string, clock: Clock, onError: (err: unknown) => void): number {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(join(dataDir, RATE_LIMIT_FILE), "utf8"));
  } catch (err) {
    if ((err as { code?: string }).code !== "ENOENT") onError(err);
    return 0;
  }
  const cells = Array.isArray(parsed) ? parsed.filter(isSaved) : [];
  return limiter.restore(cells, clock.now());
}

/** Writes the cells still filling; a write goes to a temporary file renamed into place. */
export function saveRateLimits(limiter: RateLimiter, dataDir: string, clock: Clock): void {
  const file = join(dataDir, RATE_LIMIT_FILE);
  writeFileSync(`${file}.tmp`, JSON.stringify(limiter.saved(clock.now())));
  renameSync(`${file}.tmp`, file);
}

/** Saves every few seconds while something is limited; `stop` saves once more. */
export function keepRateLimits(limiter: RateLimiter, dataDir: string, clock: Clock, onError: (err: unknown) => void): { stop(): void } {
  // Nothing limited twice in a row: nothing to write. A failing write is reported once per run.
  let wroteEmpty = false;
  let failing = false;
  const save = () => {
    try {
      const empty = limiter.size.cells === 0;
      if (empty && wroteEmpty) return;
      saveRateLimits(limiter, dataDir, clock);
      wroteEmpty = empty;
      failing = false;
    } catch (err) {
      if (!failing) onError(err);
      failing = true;
    }
  };
  const timer = setInterval(save, SAVE_EVERY_MS);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      save();
    },
  };
}
