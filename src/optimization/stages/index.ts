// The token engine's stages in the order they run (types.ts STAGE_NAMES; docs/optimization.md).
import type { Stage } from "../types.ts";
import { cacheAlign } from "./cache-align.ts";
import { columnarArrays } from "./columnar-arrays.ts";
import { dedupeDocuments } from "./dedupe-documents.ts";
import { historyWindow } from "./history-window.ts";
import { jsonMinify } from "./json-minify.ts";
import { toolPrune } from "./tool-prune.ts";
import { whitespace } from "./whitespace.ts";

export const STAGES: readonly Stage[] = [jsonMinify, whitespace, dedupeDocuments, cacheAlign, columnarArrays, toolPrune, historyWindow];
