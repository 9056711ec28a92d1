// Gemini's generateContent wire shapes (ai.google.dev/api/generate-content), only the fields gw
// writes or reads. Field names are Gemini's camelCase; everything else passes as unknown.

export interface GeminiPart {
  text?: string;
  /** A thought summary (only when includeThoughts is asked for): never answer content. */
  thought?: boolean;
  /** Opaque, base64; Gemini 3 wants it back on the first functionCall of each step. */
  thoughtSignature?: string;
  inlineData?: { mimeType: string; data: string };
  fileData?: { mimeType?: string; fileUri: string };
  functionCall?: { name: string; args?: Record<string, unknown>; id?: string };
  functionResponse?: { name: string; response: Record<string, unknown>; id?: string };
  [extra: string]: unknown;
}

export interface GeminiContent {
  role?: "user" | "model";
  parts: GeminiPart[];
}

export interface GeminiFunctionDeclaration {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
}

export interface GenerationConfig {
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  stopSequences?: string[];
  responseMimeType?: string;
  responseJsonSchema?: Record<string, unknown>;
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
}

export type FunctionCallingMode = "AUTO" | "ANY" | "NONE";

export interface GenerateContentRequest {
  contents: GeminiContent[];
  systemInstruction?: { parts: Array<{ text: string }> };
  tools?: Array<{ functionDeclarations: GeminiFunctionDeclaration[] }>;
  toolConfig?: { functionCallingConfig: { mode: FunctionCallingMode; allowedFunctionNames?: string[] } };
  generationConfig?: GenerationConfig;
}

export interface UsageMetadata {
  promptTokenCount?: number;
  cachedContentTokenCount?: number;
  candidatesTokenCount?: number;
  thoughtsTokenCount?: number;
  toolUsePromptTokenCount?: number;
  totalTokenCount?: number;
  [extra: string]: unknown;
}

export interface GeminiCandidate {
  content?: { role?: string; parts?: GeminiPart[] };
  finishReason?: string;
  index?: number;
  [extra: string]: unknown;
}

export interface GenerateContentResponse {
  candidates?: GeminiCandidate[];
  promptFeedback?: { blockReason?: string; [extra: string]: unknown };
  usageMetadata?: UsageMetadata;
  modelVersion?: string;
  responseId?: string;
  [extra: string]: unknown;
}
