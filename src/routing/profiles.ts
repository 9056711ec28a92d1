// Routing profiles (gateway-api.md 2.6): each lists models in order of preference. The routing
// issue replaces these lists with scored selection; until then the order is the ranking.
import type { RoutingProfile } from "../config/constants.ts";

export const PROFILE_MODELS: Readonly<Record<RoutingProfile, readonly string[]>> = {
  "gw-auto": [
    "openai/gpt-4o-mini", "google/gemini-2.5-flash", "anthropic/claude-haiku-4-5",
    "deepseek/deepseek-chat", "groq/llama-3.3-70b-versatile", "mistral/mistral-small-latest",
  ],
  "gw-fast": [
    "groq/llama-3.1-8b-instant", "google/gemini-2.5-flash-lite", "openai/gpt-4.1-nano",
    "openai/gpt-4o-mini", "mistral/mistral-small-latest",
  ],
  "gw-balanced": [
    "openai/gpt-4.1-mini", "google/gemini-2.5-flash", "anthropic/claude-haiku-4-5",
    "deepseek/deepseek-chat", "mistral/mistral-medium-latest",
  ],
  "gw-quality": [
    "anthropic/claude-sonnet-4-5", "openai/gpt-4.1", "google/gemini-2.5-pro", "openai/gpt-4o",
    "mistral/mistral-large-latest",
  ],
  "gw-max": ["openai/gpt-5", "anthropic/claude-opus-4-1", "google/gemini-2.5-pro", "xai/grok-4"],
  "gw-reasoning": ["openai/o3", "deepseek/deepseek-reasoner", "google/gemini-2.5-pro", "openai/o4-mini"],
  "gw-code": [
    "anthropic/claude-sonnet-4-5", "openai/gpt-5", "openai/gpt-4.1", "mistral/codestral-latest",
    "deepseek/deepseek-chat",
  ],
};

/** Reference model behind `saved` when a profile was asked for (docs/decisions.md). */
export const BASELINE_MODEL_ID = "openai/gpt-4o";
