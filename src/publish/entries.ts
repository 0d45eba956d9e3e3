import { median, sampleStandardDeviation } from "simple-statistics";
import type { Cell, Results } from "../results/schema.js";
import { withoutUndefined } from "../util/objects.js";
import type { Bench, BenchCommit, BenchEntry } from "./datajs.js";

/**
 * Turns results into github-action-benchmark entries. Direction is per suite in their format,
 * so each scenario (and load level) gives two suites: `<scenario> throughput`
 * (customBiggerIsBetter, `<proxy> req/s`) and `<scenario> latency` (customSmallerIsBetter,
 * `<proxy> p50`, `<proxy> p99`, `<proxy> mean`), and a third where the proxy's own cost was
 * measured: `<scenario> proxy cost` (customSmallerIsBetter, `<proxy> CPU/request` in µs,
 * `<proxy> peak memory` in MiB). Only `ok` cells become benches.
 */

export const TOOL_BIGGER = "customBiggerIsBetter";
export const TOOL_SMALLER = "customSmallerIsBetter";

/** What the caller knows about the commit beyond results.json (GITHUB_* in a workflow). */
export interface CommitContext {
  /** https://github.com/owner/name: commit URLs are `${repoUrl}/commit/${sha}`. */
  repoUrl?: string;
  sha?: string;
  message?: string;
  timestamp?: string;
  authorName?: string;
  authorEmail?: string;
  /** GitHub username of both, when nothing more specific is known. */
  username?: string;
  authorUsername?: string;
  committerUsername?: string;
}

export function suiteName(scenario: string, loadLabel: string, direction: Direction): string {
  return loadLabel === "default" ? `${scenario} ${direction}` : `${scenario} (${loadLabel}) ${direction}`;
}

/** results.json's git block first; the context fills what it lacks. */
export function commitInfo(results: Results, context: CommitContext = {}): BenchCommit {
  const git = results.environment.git;
  const id = git.commit ?? context.sha ?? "unknown";
  // An empty name is no name: `|| undefined` leaves it out.
  const person = (username: string | undefined) =>
    withoutUndefined({
      email: (git.author?.email ?? context.authorEmail) || undefined,
      name: (git.author?.name ?? context.authorName) || undefined,
      username: username || undefined,
    });
  const commit: BenchCommit = {
    author: person(context.authorUsername ?? context.username),
    committer: person(context.committerUsername ?? context.username),
    id,
    message: git.message ?? context.message ?? "",
    timestamp: git.timestamp ?? context.timestamp ?? results.startedAt,
  };
  if (context.repoUrl && id !== "unknown") commit.url = `${context.repoUrl.replace(/\/+$/, "")}/commit/${id}`;
  return commit;
}

const round = (x: number, digits = 3): number => Number(x.toFixed(digits));

function extraOf(cell: Cell): string {
  const lines = [
    `repetitions: ${cell.repetitions.length}`,
    `engine: ${cell.engine}`,
    `load: ${loadText(cell)}`,
  ];
  if (cell.proxyVersion) lines.push(`version: ${cell.proxyVersion}`);
  return lines.join("\n");
}

function loadText(cell: Cell): string {
  const l = cell.load;
  const parts: string[] = [l.model];
  if (l.vus) parts.push(`${l.vus} VUs`);
  if (l.connections) parts.push(`${l.connections} connections`);
  if (l.rate) parts.push(`${l.rate}/s`);
  if (l.requests) parts.push(`${l.requests} requests`);
  if (l.durationS) parts.push(`${l.durationS} s`);
  return parts.join(", ");
}

const COST_BENCHES = [
  { figure: "cpuPerRequestUs", name: "CPU/request", unit: "µs" },
  { figure: "peakMemoryMiB", name: "peak memory", unit: "MiB" },
] as const;

/**
 * A cell's benches by suite direction: its req/s, its latencies, and the proxy's cost figures
 * that every repetition measured. Each is the median of the repetitions, with their standard
 * deviation as its range when there are two or more.
 */
function cellBenches(cell: Cell, label: string): Record<Direction, Bench[]> {
  const extra = extraOf(cell);
  const reps = cell.repetitions;
  const bench = (name: string, values: number[], unit: string, digits = 3): Bench => {
    const figures = { name: `${label} ${name}`, value: round(median(values), digits), unit };
    if (values.length < 2) return { ...figures, extra };
    return { ...figures, range: `± ${round(sampleStandardDeviation(values))}`, extra };
  };
  const latency = (["p50", "p99", "mean"] as const).map((m) => {
    const values = reps.map((r) => r.latencyMs[m]);
    return bench(m, values, "ms");
  });
  const cost = COST_BENCHES.flatMap(({ figure, name, unit }) => {
    const values = reps.map((r) => r.proxyCost?.[figure]);
    return values.every((v): v is number => v !== undefined) ? [bench(name, values, unit)] : [];
  });
  const rps = reps.map((r) => r.rps);
  return { throughput: [bench("req/s", rps, "req/s", 2)], latency, "proxy cost": cost };
}

/** The suites of each direction, their tool (github-action-benchmark's), in the order written. */
const DIRECTIONS = [
  ["throughput", TOOL_BIGGER],
  ["latency", TOOL_SMALLER],
  ["proxy cost", TOOL_SMALLER],
] as const;
type Direction = (typeof DIRECTIONS)[number][0];

/**
 * The entries of one results set, keyed by suite name, in a stable order. When one scenario and
 * load ran a proxy with several engines, the bench names carry the engine (`nginx [wrk] req/s`).
 */
export function buildSuites(
  results: Results,
  options: { commit: BenchCommit; date: number },
): Map<string, BenchEntry> {
  const ok = results.cells.filter((c) => c.status === "ok" && c.repetitions.length > 0);
  const groups = new Map<string, { scenario: string; load: string; cells: Cell[] }>();
  for (const cell of ok) {
    const key = JSON.stringify([cell.scenario, cell.load.label]);
    const group = groups.get(key) ?? { scenario: cell.scenario, load: cell.load.label, cells: [] };
    group.cells.push(cell);
    groups.set(key, group);
  }
  const suites = new Map<string, BenchEntry>();
  for (const group of groups.values()) {
    const engines = new Map<string, Set<string>>();
    for (const c of group.cells) engines.set(c.proxy, (engines.get(c.proxy) ?? new Set()).add(c.engine));
    const label = (c: Cell) => ((engines.get(c.proxy)?.size ?? 0) > 1 ? `${c.proxy} [${c.engine}]` : c.proxy);
    const benches = group.cells.map((cell) => cellBenches(cell, label(cell)));
    for (const [direction, tool] of DIRECTIONS) {
      const all = benches.flatMap((b) => b[direction]);
      if (all.length === 0) continue;
      const entry = { commit: options.commit, date: options.date, tool, benches: all };
      suites.set(suiteName(group.scenario, group.load, direction), entry);
    }
  }
  return suites;
}
