import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { expandResultPaths, readMergedResults } from "../results/merge.js";
import { selectVariant } from "../results/select.js";
import { CHANGES_JS_FILE, serializeChangesJs } from "./changesjs.js";
import type { SeriesChanges } from "./change-points.js";
import { UserError } from "../util/errors.js";
import { appendEntries, parseDataJs, serializeDataJs } from "./datajs.js";
import type { BenchCommit, BenchEntry } from "./datajs.js";
import { buildSuites, commitInfo, type CommitContext } from "./entries.js";
import {
  checkoutTip,
  commitPaths,
  GitError,
  initWorkTree,
  isHttpRemote,
  pushHead,
  resolveRemote,
  type GitOptions,
} from "./git.js";
import { CHART_JS_FILE, isOurPage, renderIndexHtml } from "./page.js";

export interface PublishSettings {
  /** A results directory (or results.json); several: the shards of one run, merged. */
  resultsDir: string | string[];
  /** Of a variant run: the variant whose cells are published (a run without variants: all). */
  variant?: string;
  /** A path to a (bare) repository or a URL. */
  remote: string;
  branch: string;
  /** Folder inside the branch, relative: data.js and index.html go there. */
  dir: string;
  maxItems?: number;
  message?: string;
  /** Fetch-and-reapply rounds after a rejected push. */
  retries: number;
  /** Sent to https remotes only. */
  token?: string;
  context: CommitContext;
  now?: () => number;
  log?: (line: string) => void;
  /** Backoff base in ms (doubled per attempt, with jitter). */
  backoffMs?: number;
  /**
   * Finds the change points of every series of the data.js just written (`proxybench changes`),
   * for changes.js; none: no changes.js.
   */
  findChanges?: (dataJsFile: string) => Promise<SeriesChanges[]>;
}

export interface PublishOutcome {
  pushed: boolean;
  attempts: number;
  suites: string[];
  commitId: string;
  /** Set when an index.html that is not ours was left in place. */
  keptForeignPage: boolean;
  /** The change points written to changes.js (with `findChanges`). */
  changes?: SeriesChanges[];
  /** Why they could not be found: data.js was published all the same, changes.js left as it was. */
  changesError?: string;
}

type ChangesOutcome = Pick<PublishOutcome, "changes" | "changesError">;

function describeChanges(series: readonly SeriesChanges[]): string {
  const points = series.flatMap((s) => s.changes);
  const regressions = points.filter((c) => c.regression).length;
  return `${points.length} change points (${regressions} regressions) in ${series.length} series`;
}

/**
 * changes.js beside data.js, from the change points of the data.js just written, and a line
 * saying what was found. A finder that fails (Otava missing, a crash) costs the marks, never the
 * history: the error is returned and the branch's changes.js, if any, stays as it was (its marks
 * are placed by commit, so they stay true of the points they name).
 */
async function writeChanges(folder: string, { settings, log }: Job): Promise<ChangesOutcome> {
  if (!settings.findChanges) return {};
  let changes: SeriesChanges[];
  try {
    changes = await settings.findChanges(path.join(folder, "data.js"));
  } catch (err) {
    const changesError = (err as Error).message;
    log(`change points not found (${changesError}): ${CHANGES_JS_FILE} left as it was`);
    return { changesError };
  }
  await writeFile(path.join(folder, CHANGES_JS_FILE), serializeChangesJs(changes));
  log(`${CHANGES_JS_FILE}: ${describeChanges(changes)}`);
  return { changes };
}

/** Checks the folder inside the branch: relative, no `..` (pure). */
export function normaliseDir(dir: string): string {
  const normal = path.posix.normalize(dir.replace(/\\/g, "/")).replace(/\/+$/, "");
  if (path.posix.isAbsolute(normal) || normal === ".." || normal.startsWith("../")) {
    throw new UserError(`--dir ${dir}: must be a folder inside the branch (relative, without '..')`);
  }
  return normal === "" ? "." : normal;
}

function defaultMessage(commit: BenchCommit, suites: string[]): string {
  const sha = commit.id === "unknown" ? "an unknown commit" : commit.id.slice(0, 12);
  return `Add benchmark results for ${sha} (${suites.length} suites)`;
}

function chartJsSource(): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve("chart.js")), CHART_JS_FILE);
}

/** A file's text; undefined when there is no such file. */
const readIfExists = (file: string): Promise<string | undefined> =>
  readFile(file, "utf8").catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return undefined;
    throw err;
  });

/** The branch's data.js, or an empty one; one that does not parse is left as it is, never started over. */
async function readHistory(dataFile: string, label: string, repoUrl: string | undefined, now: number) {
  const existing = await readIfExists(dataFile);
  if (existing === undefined) return { lastUpdate: now, repoUrl: repoUrl ?? "", entries: {} };
  try {
    return parseDataJs(existing, label);
  } catch (err) {
    if (err instanceof UserError) throw new UserError(`${err.message}; refusing to overwrite it`);
    throw err;
  }
}

/**
 * Writes the new entries (and our page) into a checked-out branch, saying what it did; throws on
 * a bad data.js.
 */
async function applyToWorkTree(
  job: Job,
  suites: ReadonlyMap<string, BenchEntry>,
  now: number,
): Promise<{ keptForeignPage: boolean } & ChangesOutcome> {
  const { settings, dir, log } = job;
  const folder = path.join(job.options.cwd, dir);
  await mkdir(folder, { recursive: true });
  const dataFile = path.join(folder, "data.js");
  const label = `${settings.branch}:${path.posix.join(dir, "data.js")}`;
  const history = await readHistory(dataFile, label, settings.context.repoUrl, now);
  const updated = appendEntries(history, suites, {
    now,
    maxItems: settings.maxItems,
    repoUrl: settings.context.repoUrl,
  });
  await writeFile(dataFile, serializeDataJs(updated));

  const pageFile = path.join(folder, "index.html");
  const page = await readIfExists(pageFile);
  const keptForeignPage = page !== undefined && !isOurPage(page);
  if (keptForeignPage) log(`${dir}/index.html is not ours: left as it is (data.js is updated)`);
  else {
    await writeFile(pageFile, renderIndexHtml());
    await copyFile(chartJsSource(), path.join(folder, CHART_JS_FILE));
  }
  return { keptForeignPage, ...(await writeChanges(folder, job)) };
}

/** A remote for messages: any user:password part of a URL left out. */
export function displayRemote(remote: string): string {
  return remote.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, "$1");
}

/**
 * Appends the results to the branch's data.js and pushes, never forced. A push that lost a race
 * is followed by a fresh fetch and the entries applied again on the new tip (data.js is re-read,
 * not rebased as text), up to `retries` times. A data.js that does not parse or validate stops
 * everything before any commit: the history on the remote is never replaced.
 */
export async function publish(settings: PublishSettings): Promise<PublishOutcome> {
  const job = await jobOf(settings);
  const work = job.options.cwd;
  try {
    await initWorkTree(work, job.remote, job.options);
    return await pushWithRetries(job);
  } catch (err) {
    // Git's own message (token already redacted) is what the user needs; no stack.
    if (err instanceof GitError) throw new UserError(`${displayRemote(job.remote)}: ${err.message}`, 1);
    throw err;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** What every attempt of one publish works with (the work tree made once there is something to publish). */
async function jobOf(settings: PublishSettings) {
  const log = settings.log ?? (() => undefined);
  const now = settings.now ?? Date.now;
  // The folder inside the branch, normalised.
  const dir = normaliseDir(settings.dir);
  const dirs = typeof settings.resultsDir === "string" ? [settings.resultsDir] : settings.resultsDir;
  const results = selectVariant(await readMergedResults(await expandResultPaths(dirs)), settings.variant);
  const commit = commitInfo(results, settings.context);
  const probe = buildSuites(results, { commit, date: now() });
  if (probe.size === 0) {
    throw new UserError(`${dirs.join(", ")}: nothing to publish: no cell has status ok`, 1);
  }
  const remote = resolveRemote(settings.remote);
  const work = await mkdtemp(path.join(tmpdir(), "proxybench-publish-"));
  // git's options in the work tree (its `cwd`).
  const options: GitOptions = { cwd: work, token: isHttpRemote(remote) ? settings.token : undefined };
  return { settings, results, commit, suiteNames: [...probe.keys()], dir, remote, options, now, log };
}
type Job = Awaited<ReturnType<typeof jobOf>>;

/** Applies the entries on the branch's tip and pushes, again on a fresh tip after a lost race. */
async function pushWithRetries(job: Job): Promise<PublishOutcome> {
  const { settings, results, commit, suiteNames, dir, options, log } = job;
  const base = settings.backoffMs ?? 200;
  for (let attempt = 1; attempt <= settings.retries + 1; attempt++) {
    const tip = await checkoutTip(settings.branch, options);
    log(`${settings.branch}: ${tip ? `tip ${tip.slice(0, 12)}` : "does not exist yet, creating it"}`);
    const date = job.now();
    const applied = await applyToWorkTree(job, buildSuites(results, { commit, date }), date);
    await commitPaths([dir], settings.message ?? defaultMessage(commit, suiteNames), options);
    if ((await pushHead(settings.branch, options)) === "pushed") {
      log(`pushed ${suiteNames.length} suites to ${settings.branch} (attempt ${attempt})`);
      return { pushed: true, attempts: attempt, suites: suiteNames, commitId: commit.id, ...applied };
    }
    if (attempt > settings.retries) break;
    const delay = Math.min(5000, base * 2 ** (attempt - 1)) * (0.5 + Math.random());
    log(`push rejected (the branch moved); fetching and applying again in ${Math.round(delay)} ms`);
    await sleep(delay);
  }
  throw new UserError(
    `push to ${settings.branch} was rejected ${settings.retries + 1} times (others kept pushing first); nothing was lost: run publish again`,
    1,
  );
}
