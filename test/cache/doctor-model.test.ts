// `gw doctor` reports the sentence model ready (issue 22 item 5): the real model, loaded in its
// worker as `gw serve` loads it, embeds a sentence into a 512-dim unit vector.
import { expect, test } from "bun:test";
import { doctor, doctorWithModel } from "../../src/doctor.ts";

test("doctorWithModel adds a sentence_model check that loads the real model and reports it ready", async () => {
  const report = await doctorWithModel();
  expect(report.checks.sentence_model.ok).toBe(true);
  expect(report.checks.sentence_model.detail).toMatchObject({ ready: true, dimensions: 512 });
  const { load_ms } = report.checks.sentence_model.detail as { load_ms: number };
  expect(load_ms).toBeGreaterThan(0);
  // The synchronous checks are the same ones doctor() runs.
  expect(Object.keys(report.checks)).toEqual([...Object.keys(doctor().checks), "sentence_model"]);
  expect(report.ok).toBe(Object.values(report.checks).every((c) => c.ok));
}, 120_000);
