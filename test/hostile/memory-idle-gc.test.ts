// The idle collector (docs/availability.md "Memory"): after a burst, once requests stop, one full
// collection; never while requests come in or are in flight, and at most once a minute.
import { expect, test } from "bun:test";
import { idleCollector } from "../../src/http/idle-gc.ts";
import { Lifecycle } from "../../src/http/lifecycle.ts";

test("collects once after activity stops, not during it, at most once a minute", () => {
  const lifecycle = new Lifecycle();
  let clock = 0;
  let runs = 0;
  const check = idleCollector(lifecycle, () => runs++, () => clock);
  expect(check()).toBe(false); // nothing happened yet
  lifecycle.requests += 10;
  expect(check()).toBe(false); // requests since the last check: busy
  clock += 5_000;
  expect(check()).toBe(true); // a quiet check after a busy one
  expect(check()).toBe(false); // once
  lifecycle.requests++;
  check();
  clock += 5_000;
  expect(check()).toBe(false); // quiet again, but within the minute
  clock += 60_000;
  expect(check()).toBe(true);
  expect(runs).toBe(2);
});

test("a request still in flight counts as activity", () => {
  const lifecycle = new Lifecycle();
  let runs = 0;
  const check = idleCollector(lifecycle, () => runs++, () => 1e9);
  lifecycle.inFlight = { abortAll: () => 0, idle: () => Promise.resolve(), size: 1 };
  expect(check()).toBe(false);
  expect(check()).toBe(false);
  lifecycle.inFlight = { abortAll: () => 0, idle: () => Promise.resolve(), size: 0 };
  expect(check()).toBe(true);
  expect(runs).toBe(1);
});
