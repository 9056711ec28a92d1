// The request's `optimization` object and the policy key `optimization_mode` (docs/optimization.md
// "Request options"): the mode's precedence, and a 400 naming the field for each bad value.
import { describe, expect, test } from "bun:test";
import { GwError } from "../../src/errors/gw-error.ts";
import { OFF, optimizationOptionsOf, unsafeRegex } from "../../src/optimization/options.ts";
import { MODES } from "../../src/optimization/types.ts";
import { PolicySchema } from "../../src/schema/admin.ts";
import { Value } from "@sinclair/typebox/value";

function paramOf(raw: Record<string, unknown>, messages = 3): string | null {
  try {
    optimizationOptionsOf(raw, undefined, messages);
    return "accepted";
  } catch (err) {
    expect(err).toBeInstanceOf(GwError);
    const e = err as GwError;
    expect(e.code).toBe("invalid_request");
    expect(e.status).toBe(400);
    expect(e.message).toContain(e.param ?? "?");
    return e.param;
  }
}

describe("the mode", () => {
  test("the request's mode wins, else the project's, else off (shared, unallocated)", () => {
    expect(optimizationOptionsOf({ mode: "aggressive" }, "safe", 1).mode).toBe("aggressive");
    expect(optimizationOptionsOf({}, "balanced", 1).mode).toBe("balanced");
    expect(optimizationOptionsOf(undefined, "safe", 1).mode).toBe("safe");
    expect(optimizationOptionsOf(undefined, undefined, 1)).toBe(OFF);
    expect(optimizationOptionsOf(undefined, "off", 1)).toBe(OFF);
    expect(optimizationOptionsOf({ mode: "off" }, "aggressive", 1).mode).toBe("off");
  });

  test("the policy schema accepts exactly the engine's modes", () => {
    for (const mode of MODES) expect(Value.Check(PolicySchema, { optimization_mode: mode })).toBe(true);
    expect(Value.Check(PolicySchema, { optimization_mode: "max" })).toBe(false);
  });
});

describe("validation names the field", () => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ mode: "turbo" }, "optimization.mode"],
    [{ mode: 1 }, "optimization.mode"],
    [{ level: 1 }, "optimization.level"],
    [{ preserve: "ORD-1" }, "optimization.preserve"],
    [{ preserve: ["ok", 5] }, "optimization.preserve[1]"],
    [{ preserve: [""] }, "optimization.preserve[0]"],
    [{ preserve: [{ regex: "([a-z" }] }, "optimization.preserve[0].regex"],
    [{ preserve: [{ regex: "(a+)+$" }] }, "optimization.preserve[0].regex"],
    [{ preserve: [{ regex: "(a|aa)*" }] }, "optimization.preserve[0].regex"],
    [{ preserve: [{ regex: "(x)\\1" }] }, "optimization.preserve[0].regex"],
    [{ preserve: [{ regex: "a", flags: "i" }] }, "optimization.preserve[0]"],
    [{ do_not_compress: ["developer"] }, "optimization.do_not_compress[0]"],
    [{ do_not_compress: ["system", 3] }, "optimization.do_not_compress[1]"],
    [{ do_not_compress: [-1] }, "optimization.do_not_compress[0]"],
    [{ documents: [0, 1.5] }, "optimization.documents[1]"],
    [{ documents: [1, 1] }, "optimization.documents[1]"],
    [{ documents: 1 }, "optimization.documents"],
    [{ fields: ["$.a"] }, "optimization.fields"],
    [{ fields: { keep: ["a.b"] } }, "optimization.fields.keep[0]"],
    [{ fields: { drop: ["$.items[x]"] } }, "optimization.fields.drop[0]"],
    [{ fields: { only: [] } }, "optimization.fields.only"],
  ];
  for (const [raw, param] of cases) test(`${JSON.stringify(raw)} -> ${param}`, () => expect(paramOf(raw)).toBe(param));

  test("good options are kept as given", () => {
    const o = optimizationOptionsOf({
      mode: "safe", preserve: ["ORD-1", { regex: "INV-\\d{4}" }], do_not_compress: ["system", "last_user", 2],
      documents: [1, 2], fields: { keep: ["$.items[*].id", "$.total"], drop: ["$.items[0]"] },
    }, undefined, 3);
    expect(o).toEqual({
      mode: "safe", preserve: ["ORD-1", { regex: "INV-\\d{4}" }], do_not_compress: ["system", "last_user", 2],
      documents: [1, 2], fields: { keep: ["$.items[*].id", "$.total"], drop: ["$.items[0]"] },
    });
  });

  test("linear patterns pass the backtracking check", () => {
    for (const p of ["INV-\\d{4}", "(?:ORD|INV)-[0-9]+", "[A-Z]{3}-\\d+(?:\\.\\d+)?", "(ab)c+"]) expect(unsafeRegex(p)).toBeNull();
  });
});
