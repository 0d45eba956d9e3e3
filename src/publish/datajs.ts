import { z } from "zod";
import { checkedBySchema, UserError } from "../util/errors.js";
import { parseJsonOrRefuse } from "../util/files.js";

/**
 * github-action-benchmark's `data.js`: `window.BENCHMARK_DATA = ` followed by the JSON of
 * `BenchmarkData`, written with two-space indentation and no trailing newline. Their chart page
 * and tools read it, so we keep the exact layout and every field we do not know about
 * (`distinct`, `tree_id`, ...): parsing validates, but serialising writes back the object as read.
 */
const DATA_JS_PREFIX = "window.BENCHMARK_DATA = ";

const Person = z.looseObject({
  email: z.string().optional(),
  name: z.string().optional(),
  username: z.string().optional(),
});

export const BenchCommit = z.looseObject({
  author: Person,
  committer: Person,
  id: z.string(),
  message: z.string(),
  timestamp: z.string().optional(),
  url: z.string().optional(),
});
export type BenchCommit = z.infer<typeof BenchCommit>;

export const Bench = z.looseObject({
  name: z.string(),
  value: z.number(),
  unit: z.string(),
  range: z.string().optional(),
  extra: z.string().optional(),
});
export type Bench = z.infer<typeof Bench>;

export const BenchEntry = z.looseObject({
  commit: BenchCommit,
  date: z.number(),
  tool: z.string(),
  benches: z.array(Bench),
});
export type BenchEntry = z.infer<typeof BenchEntry>;

export const BenchmarkData = z.looseObject({
  lastUpdate: z.number(),
  repoUrl: z.string(),
  entries: z.record(z.string(), z.array(BenchEntry)),
});
export type BenchmarkData = z.infer<typeof BenchmarkData>;

/**
 * Parses a data.js. Anything that is not exactly the prefix and a valid object stops here with
 * an error naming `file` and the field (publish adds that it leaves the file alone: we never start
 * over from an empty history).
 */
export function parseDataJs(text: string, file: string): BenchmarkData {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith(DATA_JS_PREFIX.trimEnd())) {
    throw new UserError(
      `${file}: does not start with '${DATA_JS_PREFIX.trim()}': not a github-action-benchmark data.js`,
    );
  }
  let json = trimmed.slice(DATA_JS_PREFIX.trimEnd().length).trim();
  if (json.endsWith(";")) json = json.slice(0, -1);
  const data = parseJsonOrRefuse(
    json,
    (why) => `${file}: the JSON after '${DATA_JS_PREFIX.trim()}' does not parse (${why})`,
  );
  checkedBySchema(BenchmarkData, data, file, `${file}: not a valid benchmark history`);
  // The object as read, not zod's copy: zod reorders keys, and the layout must survive a round trip.
  return data as BenchmarkData;
}

/** The exact layout github-action-benchmark writes. */
export function serializeDataJs(data: BenchmarkData): string {
  return DATA_JS_PREFIX + JSON.stringify(data, null, 2);
}

/**
 * Appends one entry per suite (pure: returns a new object). `maxItems` keeps the newest N
 * entries of each suite it touches, as github-action-benchmark's `max-items-in-chart` does. A
 * given `repoUrl` replaces the stored one (as theirs does); without one the stored one stays.
 */
export function appendEntries(
  data: BenchmarkData,
  suites: ReadonlyMap<string, BenchEntry>,
  options: { now: number; maxItems?: number; repoUrl?: string },
): BenchmarkData {
  const entries: Record<string, BenchEntry[]> = { ...data.entries };
  for (const [suite, entry] of suites) {
    let list = [...(entries[suite] ?? []), entry];
    if (options.maxItems !== undefined && list.length > options.maxItems) {
      list = list.slice(list.length - options.maxItems);
    }
    entries[suite] = list;
  }
  return {
    ...data,
    lastUpdate: options.now,
    repoUrl: options.repoUrl || data.repoUrl || "",
    entries,
  };
}
