// The dashboard's built files (scripts/build-dashboard.ts writes generated-assets.ts): index.html and
// the hashed assets, decoded once, kept gzipped and raw (docs/dashboard.md "Building the dashboard").
import { ASSETS, INDEX_HTML } from "./generated-assets.ts";

export interface Asset {
  type: string;
  gzip: Uint8Array;
  raw: Uint8Array;
  /** Strong validator of the raw bytes; the gzip representation's is derived from it. */
  etag: string;
}

export const indexHtml: string = INDEX_HTML;

let decoded: Map<string, Asset> | null = null;

function table(): Map<string, Asset> {
  if (decoded) return decoded;
  decoded = new Map();
  for (const [path, a] of Object.entries(ASSETS)) {
    decoded.set(path, { type: a.type, gzip: Buffer.from(a.gzip, "base64"), raw: Buffer.from(a.raw, "base64"), etag: a.etag });
  }
  return decoded;
}

/** The asset at `/assets/<name>`, or undefined. */
export const findAsset = (path: string): Asset | undefined => table().get(path);

/** Every asset path, for tests and the size report. */
export const assetPaths = (): string[] => [...table().keys()];
