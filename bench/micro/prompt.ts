// A realistic English prompt of about the requested number of tokens, for the micro-benchmarks.
import { countTextTokens } from "../../src/analysis/tokens.ts";

const PARAGRAPH =
  "Our quarterly review covers the migration of the billing service to the new cluster, the incident on " +
  "March 3rd where invoices were delayed by six hours, and the plan for the next sprint. The team moved " +
  "42 endpoints, rewrote the retry logic, and cut p99 latency from 480 ms to 210 ms. Open questions: who " +
  "owns the alerting rules, whether we keep the legacy export job, and how to budget for the extra storage. ";

export function promptOfTokens(tokens: number): string {
  let text = "Summarise the following notes for a colleague in five bullet points.\n\n";
  while (countTextTokens(text + PARAGRAPH) <= tokens) text += PARAGRAPH;
  const words = PARAGRAPH.split(" ");
  for (const w of words) {
    if (countTextTokens(`${text}${w} `) > tokens) break;
    text += `${w} `;
  }
  return text;
}
