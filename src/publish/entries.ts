import { median, sampleStandardDeviation } from "simple-statistics";
import type { Cell, Results } from "../results/schema.js";
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

export function suiteName(
  scenario: string,
  loadLabel: string,
  direction: "throughput" | "latency" | "proxy cost",
): string {
  return loadLabel === "default" ? `${scenario} ${direction}` : `${scenario} (${loadLabel}) ${direction}`;
}

/** results.json's git block first; the context fills what it lacks. */
export function commitInfo(results: Results, context: CommitContext = {}): BenchCommit {
  const git = results.environment.git;
  const id = git.commit ?? context.sha ?? "unknown";
  const person = {
    ...((git.author?.email ?? context.authorEmail)
      ? { email: git.author?.email ?? context.authorEmail }
      : {}),
    ...((git.author?.name ?? context.authorName) ? { name: git.author?.name ?? context.authorName } : {}),
  };
  const author = context.authorUsername ?? context.username;
  const committer = context.committerUsername ?? context.username;
  const commit: BenchCommit = {
    author: { ...person, ...(author ? { username: author } : {}) },
    committer: { ...person, ...(committer ? { username: committer } : {}) },
    id,
    message: git.message ?? context.message ?? "",
    timestamp: git.timestamp ?? context.timestamp ?? results.startedAt,
  };
  if (context.repoUrl && id !== "unknown") commit.url = `${context.repoUrl.replace(/\/+$/, "")}/commit/${id}`;
  return commit;
}

const round = (x: number, digits = 3): number => Number(x.toFixed(digits));

function spread(values: number[]): string | undefined {
  if (values.length < 2) return undefined;
  return `± ${round(sampleStandardDeviation(values))}`;
}

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

    const throughput: Bench[] = [];
    const latency: Bench[] = [];
    const cost: Bench[] = [];
    for (const cell of group.cells) {
      const reps = cell.repetitions;
      const rps = reps.map((r) => r.rps);
      const extra = extraOf(cell);
      throughput.push(
        withRange(
          { name: `${label(cell)} req/s`, value: round(median(rps), 2), unit: "req/s" },
          spread(rps),
          extra,
        ),
      );
      for (const metric of ["p50", "p99", "mean"] as const) {
        const values = reps.map((r) => r.latencyMs[metric]);
        latency.push(
          withRange(
            { name: `${label(cell)} ${metric}`, value: round(median(values)), unit: "ms" },
            spread(values),
            extra,
          ),
        );
      }
      cost.push(...costBenches(cell, label(cell), extra));
    }
    const entry = (tool: string, benches: Bench[]): BenchEntry => ({
      commit: options.commit,
      date: options.date,
      tool,
      benches,
    });
    suites.set(suiteName(group.scenario, group.load, "throughput"), entry(TOOL_BIGGER, throughput));
    suites.set(suiteName(group.scenario, group.load, "latency"), entry(TOOL_SMALLER, latency));
    if (cost.length > 0)
      suites.set(suiteName(group.scenario, group.load, "proxy cost"), entry(TOOL_SMALLER, cost));
  }
  return suites;
}

const COST_BENCHES = [
  { figure: "cpuPerRequestUs", name: "CPU/request", unit: "µs" },
  { figure: "peakMemoryMiB", name: "peak memory", unit: "MiB" },
] as const;

/** The proxy's cost figures that every repetition of the cell measured, as benches. */
function costBenches(cell: Cell, label: string, extra: string): Bench[] {
  const benches: Bench[] = [];
  for (const { figure, name, unit } of COST_BENCHES) {
    const values = cell.repetitions.map((r) => r.proxyCost?.[figure]);
    if (!values.every((v): v is number => v !== undefined)) continue;
    benches.push(
      withRange({ name: `${label} ${name}`, value: round(median(values)), unit }, spread(values), extra),
    );
  }
  return benches;
}

function withRange(bench: Bench, range: string | undefined, extra: string): Bench {
  return range === undefined ? { ...bench, extra } : { ...bench, range, extra };
}
