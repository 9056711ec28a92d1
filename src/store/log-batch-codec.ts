// How a batch of request-log rows crosses to the log worker: one string, two lines per row (the
// row's column values as a JSON array, then its trace as JSON or `null`). JSON.stringify escapes
// every newline, so "\n" separates safely. The trace is serialised once, on the request thread, and
// stored as that text: the worker never parses it, and no keys are serialised for the columns.
import { prepareRow, type PreparedRow, type RequestRecord, type SqlValue } from "./repos/requests.ts";

export function encodeLogBatch(records: RequestRecord[]): string {
  let text = "";
  for (const r of records) {
    const row = prepareRow(r);
    text += `${JSON.stringify(row.values)}\n${row.trace ?? "null"}\n`;
  }
  return text;
}

export function decodeLogBatch(text: string): PreparedRow[] {
  const lines = text.split("\n");
  const rows: PreparedRow[] = [];
  // The text ends with a newline, so the last element is empty.
  for (let i = 0; i + 1 < lines.length; i += 2) {
    const values = JSON.parse(lines[i]!) as SqlValue[];
    const trace = lines[i + 1]!;
    rows.push({ values, id: values[0] as string, projectId: values[1] as string, trace: trace === "null" ? null : trace });
  }
  return rows;
}
