// Admin API bodies (docs/api.md "Admin API", "Project policy"): projects, policy keys, keys and credits.
import { Type, type Static, type TObject, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { KEY_SCOPES } from "../config/constants.ts";

const lit = <T extends string>(values: readonly T[]) => Type.Union(values.map((v) => Type.Literal(v)));
const Usd = Type.Number({ minimum: 0 });

export const PolicySchema = Type.Object({
  cache: Type.Optional(Type.Boolean()),
  semantic_cache: Type.Optional(Type.Boolean()),
  semantic_mode: Type.Optional(lit(["conservative", "balanced", "aggressive"])),
  semantic_threshold: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  cache_ttl: Type.Optional(Type.Integer({ minimum: 1 })),
  retention: Type.Optional(lit(["standard", "minimal", "zero", "redacted"])),
  pii: Type.Optional(lit(["allow", "redact", "block"])),
  secrets: Type.Optional(lit(["allow", "redact", "block"])),
  allowed_providers: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  blocked_providers: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  regions: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  ip_allowlist: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  // Counted for the whole project; `per_key` is counted for each key on its own (docs/rate-limits.md).
  rate_limits: Type.Optional(Type.Object({
    rpm: Type.Optional(Type.Integer({ minimum: 1 })),
    tpm: Type.Optional(Type.Integer({ minimum: 1 })),
    per_key: Type.Optional(Type.Object({
      rpm: Type.Optional(Type.Integer({ minimum: 1 })),
      tpm: Type.Optional(Type.Integer({ minimum: 1 })),
    }, { additionalProperties: false })),
  }, { additionalProperties: false })),
  budgets: Type.Optional(Type.Object({ daily: Type.Optional(Usd), monthly: Type.Optional(Usd) }, { additionalProperties: false })),
  budget_action: Type.Optional(lit(["block", "downgrade", "warn"])),
  trace_sample_rate: Type.Optional(Type.Union([1, 0.5, 0.1, 0.01].map((r) => Type.Literal(r)))),
  // The token engine's default mode; a request's optimization.mode wins (docs/optimization.md).
  optimization_mode: Type.Optional(lit(["off", "safe", "balanced", "aggressive"])),
}, { additionalProperties: false });
export type Policy = Static<typeof PolicySchema>;

// A stored policy may hold keys this version does not know (kept, so a save round-trips them).
const storedPolicy = TypeCompiler.Compile(Type.Object(PolicySchema.properties));
const fieldChecks = new Map(Object.entries(PolicySchema.properties).map(([k, s]) => [k, TypeCompiler.Compile(s)]));

const RESTRICTION_LISTS = new Set(["allowed_providers", "regions", "ip_allowlist"]);

/** A stored policy (JSON gw wrote, or an admin merge), typed: a known key whose value does not
 * fit is unset (the admin API never writes one); unknown keys are kept as they are. */
export function policyFrom(stored: unknown): Policy {
  if (typeof stored !== "object" || stored === null || Array.isArray(stored)) return {};
  const out: Record<string, unknown> = { ...stored };
  for (const [k, v] of Object.entries(out)) {
    if (fieldChecks.get(k)?.Check(v) !== false) continue;
    // A restriction list with a bad entry stays a restriction (fails closed): the bad entry
    // becomes a name that matches no provider, region or address.
    if (RESTRICTION_LISTS.has(k) && Array.isArray(v) && v.length > 0) out[k] = v.map((x) => (typeof x === "string" && x ? x : "(invalid)"));
    // An object (rate_limits, budgets) keeps the parts that fit: one bad limit does not lift the others.
    else if (isPlainObject(v) && PolicySchema.properties[k as keyof Policy]) out[k] = fittingParts(PolicySchema.properties[k as keyof Policy], v);
    else delete out[k];
  }
  return storedPolicy.Check(out) ? out : {};
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function fittingParts(schema: TSchema, value: Record<string, unknown>): Record<string, unknown> {
  const inner = (schema as { anyOf?: TSchema[] }).anyOf?.find((s) => (s as TObject).properties) ?? schema;
  const props = (inner as TObject).properties ?? {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const sub = props[k];
    if (!sub) continue;
    if (Value.Check(sub, v)) out[k] = v;
    else if (isPlainObject(v)) out[k] = fittingParts(sub, v);
  }
  return out;
}

const Billing = Type.Object({
  mode: Type.Optional(lit(["prepaid", "postpaid"])),
  credit_limit: Type.Optional(Type.Union([Usd, Type.Null()])),
}, { additionalProperties: false });

const Name = Type.String({ minLength: 1, maxLength: 200 });
const PlanSchema = lit(["free", "pro", "business"]);

export const CreateProjectBody = Type.Object({
  name: Name,
  plan: Type.Optional(PlanSchema),
  billing: Type.Optional(Billing),
  policy: Type.Optional(PolicySchema),
}, { additionalProperties: false });
export type CreateProjectBody = Static<typeof CreateProjectBody>;

export const UpdateProjectBody = Type.Object({
  name: Type.Optional(Name),
  plan: Type.Optional(PlanSchema),
  billing: Type.Optional(Billing),
  policy: Type.Optional(PolicySchema),
}, { additionalProperties: false });
export type UpdateProjectBody = Static<typeof UpdateProjectBody>;

export const CreateKeyBody = Type.Object({
  name: Type.Optional(Name),
  scopes: Type.Optional(Type.Array(lit(KEY_SCOPES), { minItems: 1 })),
  mode: Type.Optional(lit(["live", "test"])),
  byok: Type.Optional(Type.Boolean()),
  ip_allowlist: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
}, { additionalProperties: false });
export type CreateKeyBody = Static<typeof CreateKeyBody>;

export const CreditsBody = Type.Object({
  amount: Type.Number({ exclusiveMinimum: 0, maximum: 1e9 }),
}, { additionalProperties: false });

/** PUT /admin/projects/{id}/provider-keys/{provider}: a project's own provider key (BYOK). */
export const ProviderKeyBody = Type.Object({
  api_key: Type.String({ minLength: 1, maxLength: 4096 }),
  base_url: Type.Optional(Type.String({ pattern: "^https?://[^\\s]+$", maxLength: 2048 })),
}, { additionalProperties: false });
export type ProviderKeyBody = Static<typeof ProviderKeyBody>;
