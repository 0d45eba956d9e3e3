/**
 * What `proxybench changes` finds on a gh-pages history (`npm run bench:changes`). Prints figures;
 * asserts nothing. Every history goes the real way: a data.js file, `proxybench changes --format
 * json` (Apache Otava from .tools/venv), its JSON read back.
 * - Synthetic: `--steps N` series of 100 runs with a 5% step at a random run between 25 and 75
 *   (half up, half down; half latency suites, half throughput), and `--flat N` series of 200 runs
 *   with no step, each run with Gaussian noise of CV 2%. Targets: the step found within 5 runs of
 *   where it happened in at least 9 series of 10; at most 1 false change point per 200 runs of a
 *   flat series. Printed for each `--min-change` given (the default and its neighbours), which is
 *   how the default was chosen.
 * - `--real N` (0: skipped): N real runs of nginx on passthrough (`proxybench run -p nginx -s
 *   passthrough -r 3 -d 1 -w 1`), each at its own commit of a git repository made for it, each
 *   published with `proxybench publish` to a bare repository's gh-pages; from run `--step-at K`
 *   on (default 16) that repository's nginx (through --proxies-dir) has a map of 3000 regular
 *   expressions tried on every request: a config change that adds work. Target: `changes` finds
 *   the step at that commit.
 *
 *   npm run bench:changes -- [--steps N] [--flat N] [--min-change 2,3,5] [--seed N]
 *                            [--real N] [--step-at K] [--attempts N] [--cpus LAYOUT] [--noise-limit X]
 *                            [--lock FILE] [--keep]
 *   (defaults 100, 100, 2,3,5, 1, 0, 16, 3, the runner's layout, 2; --lock: each real run under `flock -w 1800 FILE`;
 *   --noise-limit: of the real runs, high by default so that a machine shared with other work
 *   keeps every run's point; --keep: the temporary folder is kept)
 *
 * A real run whose cell is not ok (loadgen-bound on a machine shared with other work) is measured
 * again, at most `--attempts` times (3); publish leaves it out, so its commit has no point then.
 * `--cpus` is the runs' core layout (`proxybench run --cpus`): on 2 cores shared with other work,
 * `loadgen=0-1,proxy=0-1,upstream=0-1` keeps a neighbour's burst from marking the load
 * generator's one core saturated (the proxy's cost is its own processes' CPU either way).
 * Bounded: each real run is killed after 5 minutes (the wait for the lock at most 30 more);
 * Otava takes about a second per 100 series of 200 runs.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { DEFAULT_MIN_CHANGE_PCT } from "../src/changes/find.js";
import type { SeriesChanges } from "../src/publish/change-points.js";
import { serializeDataJs, type BenchEntry, type BenchmarkData } from "../src/publish/datajs.js";
import { TOOL_BIGGER, TOOL_SMALLER } from "../src/publish/entries.js";
import { mulberry32 } from "../src/runner/rounds.js";
import { PROJECT_ROOT } from "../src/util/paths.js";
import { gaussian } from "./ab-simulation.js";
import { nginxVariant, regexMap } from "./nginx-variant.js";
import { rate } from "./rates.js";

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i < 0 ? fallback : (process.argv[i + 1] ?? "");
}

function count(name: string, fallback: number): number {
  const value = Number(option(name, String(fallback)));
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name}: expected a whole number`);
  return value;
}

const STEPS = count("--steps", 100);
const FLAT = count("--flat", 100);
const MIN_CHANGES = option("--min-change", "2,3,5").split(",").map(Number);
const SEED = count("--seed", 1);
const REAL = count("--real", 0);
const STEP_AT = count("--step-at", 16);
const NOISE_LIMIT = option("--noise-limit", "2");
const LOCK = process.argv.includes("--lock") ? option("--lock", "") : undefined;
const CPUS = process.argv.includes("--cpus") ? ["--cpus", option("--cpus", "")] : [];
const KEEP = process.argv.includes("--keep");
/** Times a real run is measured while its cell is not ok. */
const ATTEMPTS = Math.max(1, count("--attempts", 3));

const STEP_PCT = 5;
const CV = 0.02;
const STEP_RUNS = 100;
const FLAT_RUNS = 200;
const FOUND_WITHIN = 5;
const CLI = path.join(PROJECT_ROOT, "bin", "proxybench.js");
const RUN_TIMEOUT_S = 300;

/** A command run to its end (killed after `timeoutS`); its exit code, stdout and stderr. */
function exec(file: string, args: string[], options: { cwd?: string; timeoutS?: number } = {}) {
  return new Promise<{ code: number; out: string }>((resolve, reject) => {
    const child = spawn(file, args, { cwd: options.cwd, timeout: (options.timeoutS ?? 120) * 1000 });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, out }));
  });
}

/** `proxybench changes FILE --format json` as a user runs it, its JSON read back. */
async function changesOf(file: string, minChangePct: number): Promise<SeriesChanges[]> {
  const out = `${file}.changes-${minChangePct}.json`;
  const args = [
    CLI,
    "changes",
    file,
    "--format",
    "json",
    "--out-file",
    out,
    "--min-change",
    `${minChangePct}`,
  ];
  const run = await exec(process.execPath, args);
  if (run.code !== 0) throw new Error(`proxybench changes exited with ${run.code}: ${run.out}`);
  return JSON.parse(await readFile(out, "utf8")) as SeriesChanges[];
}

interface Synthetic {
  bench: string;
  biggerIsBetter: boolean;
  values: number[];
  /** The first run after the step; none: a flat series. */
  stepAt?: number;
}

function syntheticSeries(random: () => number): Synthetic[] {
  const noisy = (level: number) => level * (1 + CV * gaussian(random));
  const steps = Array.from({ length: STEPS }, (_, k): Synthetic => {
    const stepAt = 25 + Math.floor(random() * 51);
    const factor = 1 + ((k % 4 < 2 ? 1 : -1) * STEP_PCT) / 100;
    const values = Array.from({ length: STEP_RUNS }, (_, i) => noisy(i < stepAt ? 100 : 100 * factor));
    return { bench: `step-${k}`, biggerIsBetter: k % 2 === 1, values, stepAt };
  });
  const flat = Array.from({ length: FLAT }, (_, k): Synthetic => ({
    bench: `flat-${k}`,
    biggerIsBetter: false,
    values: Array.from({ length: FLAT_RUNS }, () => noisy(100)),
  }));
  return [...steps, ...flat];
}

/** A data.js holding the series: suite `synthetic latency` or `synthetic throughput`, a commit per run. */
function historyOf(series: readonly Synthetic[]): BenchmarkData {
  const entries: Record<string, BenchEntry[]> = {};
  for (const s of series) {
    const suite = s.biggerIsBetter ? "synthetic throughput" : "synthetic latency";
    const list = (entries[suite] ??= []);
    s.values.forEach((value, i) => {
      list[i] ??= {
        commit: { author: {}, committer: {}, id: `run-${i}`, message: `run ${i}` },
        date: i * 1000,
        tool: s.biggerIsBetter ? TOOL_BIGGER : TOOL_SMALLER,
        benches: [],
      };
      list[i].benches.push({ name: s.bench, value, unit: s.biggerIsBetter ? "req/s" : "ms" });
    });
  }
  return { lastUpdate: 0, repoUrl: "", entries };
}

function syntheticFigures(series: readonly Synthetic[], found: readonly SeriesChanges[], minChange: number) {
  const byName = new Map(found.map((s) => [s.bench, s]));
  let within = 0;
  let rightDirection = 0;
  let extraInSteps = 0;
  for (const s of series.filter((x) => x.stepAt !== undefined)) {
    const changes = byName.get(s.bench)?.changes ?? [];
    const near = changes.find((c) => Math.abs(c.index - s.stepAt!) <= FOUND_WITHIN);
    if (near !== undefined) within += 1;
    const worse = s.biggerIsBetter
      ? near?.changePct !== undefined && near.changePct < 0
      : (near?.changePct ?? 0) > 0;
    if (near !== undefined && near.regression === worse) rightDirection += 1;
    extraInSteps += changes.length - (near === undefined ? 0 : 1);
  }
  const flat = series
    .filter((x) => x.stepAt === undefined)
    .map((x) => byName.get(x.bench)?.changes.length ?? 0);
  const falsePoints = flat.reduce((a, b) => a + b, 0);
  console.log(`--min-change ${minChange}%:`);
  console.log(`  ${rate(`${STEP_PCT}% step found within ${FOUND_WITHIN} runs`, within, STEPS)}`);
  console.log(
    `  ${rate("  of those, regression flag right by the suite's direction", rightDirection, within)}`,
  );
  console.log(
    `  other change points in the step series: ${extraInSteps} in ${STEPS} series of ${STEP_RUNS} runs`,
  );
  const perSeries = FLAT === 0 ? 0 : falsePoints / FLAT;
  console.log(
    `  false change points on flat series: ${falsePoints} in ${FLAT} series of ${FLAT_RUNS} runs (${perSeries.toFixed(3)} per ${FLAT_RUNS} runs)`,
  );
  console.log(`  ${rate("  flat series with any change point", flat.filter((n) => n > 0).length, FLAT)}`);
}

async function synthetic(root: string): Promise<void> {
  if (STEPS + FLAT === 0) return;
  const series = syntheticSeries(mulberry32(SEED));
  const file = path.join(root, "synthetic-data.js");
  await writeFile(file, serializeDataJs(historyOf(series)));
  console.log(
    `synthetic: ${STEPS} series of ${STEP_RUNS} runs with a ${STEP_PCT}% step, ${FLAT} flat series of ${FLAT_RUNS} runs, noise CV ${CV * 100}% per run (seed ${SEED})`,
  );
  for (const minChange of MIN_CHANGES) {
    const start = performance.now();
    const found = await changesOf(file, minChange);
    syntheticFigures(series, found, minChange);
    console.log(`  (proxybench changes: ${((performance.now() - start) / 1000).toFixed(1)} s)`);
  }
}

const git = (cwd: string, args: string[]) =>
  exec("git", ["-c", "user.name=proxybench", "-c", "user.email=bench@example.invalid", ...args], { cwd });

/** A repository whose proxies/nginx is the built-in one: the commit of the first run. */
async function appRepository(root: string): Promise<string> {
  const app = await nginxVariant(path.join(root, "app"), []);
  await git(app, ["init", "-q", "-b", "main"]);
  await git(app, ["add", "-A"]);
  await git(app, ["commit", "-q", "-m", "run 1"]);
  return app;
}

/** The commit of run `i`: the config change at --step-at, else an empty one. */
async function commitFor(app: string, heavyConf: string, i: number): Promise<string> {
  if (i === STEP_AT) {
    await writeFile(path.join(app, "proxies", "nginx", "nginx.conf"), heavyConf);
    await git(app, [
      "commit",
      "-q",
      "-am",
      "nginx: a map of 3000 regular expressions tried on every request",
    ]);
  } else if (i > 1) {
    await git(app, ["commit", "-q", "--allow-empty", "-m", `run ${i}`]);
  }
  return (await git(app, ["rev-parse", "HEAD"])).out.trim();
}

/** One short run of nginx on passthrough from the app's checkout, then published if its cell is ok. */
async function realRun(
  root: string,
  app: string,
  out: string,
): Promise<{ line: string; published: boolean }> {
  const run = ["run", "-p", "nginx", "-s", "passthrough", "-r", "3", "-d", "1", "-w", "1"];
  const args = [
    ...[CLI, ...run, ...CPUS, "--noise-limit", NOISE_LIMIT],
    ...["--proxies-dir", path.join(app, "proxies"), "--out", out],
  ];
  const timed = ["timeout", `${RUN_TIMEOUT_S}`, process.execPath, ...args];
  const [file, argv] =
    LOCK === undefined ? [timed[0]!, timed.slice(1)] : ["flock", ["-w", "1800", LOCK, ...timed]];
  const start = performance.now();
  const measured = await exec(file, argv, { cwd: app, timeoutS: 1800 + RUN_TIMEOUT_S + 60 });
  const published = await exec(process.execPath, [
    ...[CLI, "publish", out, "--repo", path.join(root, "pages.git")],
    ...["--repo-url", "https://github.com/example/app"],
  ]);
  const seconds = ((performance.now() - start) / 1000).toFixed(0);
  const outcome = published.code === 0 ? "published" : published.out.trim().replace(/^proxybench: /, "");
  return {
    line: `exit ${measured.code}, ${outcome} (${seconds} s with the lock's wait)`,
    published: published.code === 0,
  };
}

/**
 * Run `i`, measured again (at most --attempts times) while its cell is not ok: a machine shared
 * with other work marks some runs loadgen-bound, and publish leaves those out.
 */
async function measuredRun(root: string, app: string, i: number): Promise<boolean> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const { line, published } = await realRun(root, app, path.join(root, `run-${i}-${attempt}`));
    console.log(`run ${i}${attempt > 1 ? ` (attempt ${attempt})` : ""}: ${line}`);
    if (published) return true;
  }
  return false;
}

function reportReal(found: readonly SeriesChanges[], shas: readonly string[]): void {
  const runOf = (sha: string) => shas.indexOf(sha) + 1;
  const nginx = found.filter((s) => s.bench.startsWith("nginx "));
  let atStep = 0;
  for (const s of nginx) {
    const where = s.changes.map(
      (c) =>
        `run ${runOf(c.after.id)} (${c.changePct.toFixed(1)}%, p ${c.pValue.toExponential(1)}${c.regression ? ", regression" : ""})`,
    );
    const hit = s.changes.some((c) => c.after.id === shas[STEP_AT - 1]);
    if (hit) atStep += 1;
    console.log(
      `  ${s.suite} / ${s.bench}: ${s.points} points; change points at ${where.join(", ") || "none"}${hit ? "  <- the injected step" : ""}`,
    );
  }
  console.log(
    `real history: the step injected at run ${STEP_AT} (commit ${shas[STEP_AT - 1]?.slice(0, 12)}) found at that commit in ${atStep} of ${nginx.length} nginx series`,
  );
}

async function real(root: string): Promise<void> {
  if (REAL === 0) return;
  await git(root, ["init", "-q", "--bare", "pages.git"]);
  const app = await appRepository(root);
  const heavy = regexMap(3000);
  const heavyDir = await nginxVariant(path.join(root, "heavy"), heavy.lines, heavy.httpLines);
  const heavyConf = await readFile(path.join(heavyDir, "proxies", "nginx", "nginx.conf"), "utf8");
  const shas: string[] = [];
  let published = 0;
  for (let i = 1; i <= REAL; i++) {
    shas.push(await commitFor(app, heavyConf, i));
    if (await measuredRun(root, app, i)) published += 1;
  }
  console.log(`${published} of ${REAL} runs published`);
  const dataJs = path.join(root, "data.js");
  const shown = await git(path.join(root, "pages.git"), ["show", "gh-pages:dev/bench/data.js"]);
  await writeFile(dataJs, shown.out);
  const start = performance.now();
  const found = await changesOf(dataJs, DEFAULT_MIN_CHANGE_PCT);
  console.log(
    `proxybench changes on the published data.js: ${((performance.now() - start) / 1000).toFixed(1)} s`,
  );
  reportReal(found, shas);
}

const root = await mkdtemp(path.join(os.tmpdir(), "proxybench-changes-"));
try {
  await synthetic(root);
  await real(root);
} finally {
  if (KEEP) console.log(`kept in ${root}`);
  else await rm(root, { recursive: true, force: true });
}
