import { z } from "zod";
import { checkedBySchema } from "../util/errors.js";
import { parseJsonOrRefuse } from "../util/files.js";
import { SeriesChanges } from "./change-points.js";

/**
 * `changes.js`, written next to data.js on gh-pages: `window.BENCHMARK_CHANGES = ` and the JSON of
 * the `SeriesChanges[]` found on that data.js, for the chart page to mark. The same file (or the
 * bare JSON that `proxybench changes` prints) is what the issues are filed from.
 */
export const CHANGES_JS_FILE = "changes.js";

const CHANGES_JS_PREFIX = "window.BENCHMARK_CHANGES = ";

export function serializeChangesJs(series: readonly SeriesChanges[]): string {
  return `${CHANGES_JS_PREFIX}${JSON.stringify(series, null, 2)}\n`;
}

/** A changes.js, or the bare JSON of `SeriesChanges[]`, validated; errors name `file` and the field. */
export function parseChanges(text: string, file: string): SeriesChanges[] {
  let json = text.trim();
  if (json.startsWith(CHANGES_JS_PREFIX.trimEnd())) json = json.slice(CHANGES_JS_PREFIX.trimEnd().length);
  json = json.trim().replace(/;$/, "");
  const data = parseJsonOrRefuse(json, (why) => `${file}: not the JSON of change points (${why})`);
  return checkedBySchema(z.array(SeriesChanges), data, file, `${file}: not a list of series' change points`);
}
