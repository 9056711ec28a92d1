// A response's JSON body once its status is the one expected; the failure shows the status and the
// body together, so a wrong answer says what it was.
import { expect } from "bun:test";

export async function json<T>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  expect(`${res.status} ${text}`).toStartWith(`${status} `);
  return JSON.parse(text) as T;
}
