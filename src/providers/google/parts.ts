// Maps OpenAI message content (a string or content parts) to Gemini parts (pure): text, images
// (data: URLs inline, http(s) URLs as fileData), input_audio and inline files.
import { isObject } from "../../lib/json.ts";
import type { ChatMessage, ContentPart } from "../../canonical/chat.ts";
import type { GeminiPart } from "./wire.ts";

const MIME_BY_EXTENSION: Record<string, string> = {
  jpg: "image/jpeg", jpeg: "image/jpeg", png: "image/png", gif: "image/gif", webp: "image/webp",
  heic: "image/heic", heif: "image/heif", pdf: "application/pdf",
  mp3: "audio/mp3", wav: "audio/wav", mp4: "video/mp4",
};

/** Gemini needs a MIME type for a URL; OpenAI clients send none, so it is read off the extension. */
export function mimeFromUrl(url: string): string {
  const path = url.split(/[?#]/, 1)[0] ?? "";
  const dot = path.lastIndexOf(".");
  const ext = dot > path.lastIndexOf("/") ? path.slice(dot + 1).toLowerCase() : "";
  return MIME_BY_EXTENSION[ext] ?? "image/jpeg";
}

/** `data:<mime>[;base64],<payload>` -> inlineData; a non-base64 payload is percent-decoded and encoded. */
function dataUrlPart(url: string): GeminiPart | null {
  const comma = url.indexOf(",");
  if (comma === -1) return null;
  const meta = url.slice(5, comma);
  const payload = url.slice(comma + 1);
  const base64 = meta.endsWith(";base64");
  const mimeType = (base64 ? meta.slice(0, -7) : meta).split(";", 1)[0] || "application/octet-stream";
  const data = base64 ? payload : Buffer.from(decodeURIComponent(payload)).toString("base64");
  return { inlineData: { mimeType, data } };
}

function urlPart(url: string): GeminiPart | null {
  if (url.startsWith("data:")) return dataUrlPart(url);
  if (/^https?:\/\//i.test(url)) return { fileData: { mimeType: mimeFromUrl(url), fileUri: url } };
  return null;
}

function partOf(p: ContentPart): GeminiPart | null {
  if (p.type === "text") return typeof p.text === "string" && p.text.length > 0 ? { text: p.text } : null;
  if (p.type === "image_url") {
    const url = typeof p.image_url === "string" ? p.image_url : p.image_url?.url;
    return typeof url === "string" ? urlPart(url) : null;
  }
  if (p.type === "input_audio" && isObject(p.input_audio)) {
    const { data, format } = p.input_audio;
    if (typeof data === "string" && typeof format === "string") return { inlineData: { mimeType: `audio/${format}`, data } };
  }
  if (p.type === "file" && isObject(p.file) && typeof p.file.file_data === "string") return urlPart(p.file.file_data);
  return null; // a kind Gemini has no input for: left out rather than sent as something else
}

export function contentParts(content: ChatMessage["content"]): GeminiPart[] {
  if (typeof content === "string") return content.length > 0 ? [{ text: content }] : [];
  if (!Array.isArray(content)) return [];
  const out: GeminiPart[] = [];
  for (const p of content) {
    const part = isObject(p) ? partOf(p) : null;
    if (part) out.push(part);
  }
  return out;
}

/** The text of a message (system instructions and tool results are text to Gemini). */
export function textOf(content: ChatMessage["content"]): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const p of content) if (isObject(p) && p.type === "text" && typeof p.text === "string") text += p.text;
  return text;
}
