// The reference model behind `saved` when a routing profile was asked for (docs/decisions.md).
// Profiles themselves are a required quality and weights (routing/score.ts, docs/routing.md).
export const BASELINE_MODEL_ID = "openai/gpt-4o";
