/**
 * What the cross-proxy tables say of the noise, measured (`npm run bench:table-noise`). Prints
 * figures; asserts nothing. Every run is `proxybench run` at the default benchmark's settings
 * (`npm run quickstart`: its scenarios, repetitions, durations and cores), read back with the
 * report's own model (each change's interval and whether it is within noise, as the tables mark
 * it with `~`):
 * - `--identical N`: nginx and an identical copy of its folder under another name
 *   (`nginx-copy`, through --proxies-dir), nginx the baseline; a run passes when every change
 *   of the copy is within noise. Target: 19 of 20.
 * - `--overhead N`: the default benchmark itself (direct, nginx, haproxy); a run passes when
 *   nginx's p50 change against direct has an interval that excludes 0 in every scenario.
 *   Target: 9 of 10.
 * - `--simulate N`: first, N simulated runs per case through the same report code
 *   (bench/table-noise-sim.ts): how often an identical copy shows any change as real, with each
 *   round's order random or abba, under a periodic disturbance and under an offset per proxy
 *   and block (which no order removes), and how often a +15% and a +30% p50 are found. 0 (the default): none.
 * A run with a cell that is not `ok` (`noisy` on a busy machine) shows no change of that cell:
 * it is counted apart. Rates come with 95% Wilson intervals, and each run with its own wall time
 * (from its results.json: the wait for the lock left out).
 *
 *   npm run bench:table-noise -- [--identical N] [--overhead N] [--repetitions N] [--noise-limit X]
 *                               [--simulate N] [--lock FILE] [--keep]
 *   (defaults 20, 10, and the default benchmark's repetitions and noise limit; --lock: each run
 *   under `flock FILE`; --keep: the runs' folders are kept)
 * --repetitions and --noise-limit depart from the default benchmark's settings: the first to
 * measure what other counts give and cost, the second for a machine shared with other work,
 * where every repetition would be `noisy` (it then measures the tables under that noise).
 *
 * Bounded: one run of either kind takes about as long as `proxybench run --dry-run` estimates
 * (the proxies x scenarios x repetitions), plus the wait for the lock.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { cellText, changeText } from "../src/report/cells.js";
import { buildReport, type ReportColumn, type ReportGroup } from "../src/report/model.js";
import { comparisonTable } from "../src/report/tables.js";
import { readResults } from "../src/results/io.js";
import { PROJECT_ROOT } from "../src/util/paths.js";
import { command } from "./ab-real-pr.js";
import { rate } from "./rates.js";
import { SIMULATED_ROUNDS, simulateTables, type SimulatedCase } from "./table-noise-sim.js";

const COPY = "nginx-copy";

function count(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const value = i < 0 ? fallback : Number(process.argv[i + 1]);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name}: expected a whole number`);
  return value;
}

function text(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
}

const IDENTICAL = count("--identical", 20);
const SIMULATE = count("--simulate", 0);
const OVERHEAD = count("--overhead", 10);
const REPETITIONS = text("--repetitions");
const NOISE_LIMIT = text("--noise-limit");
const LOCK = text("--lock");
const KEEP = process.argv.includes("--keep");

/** A proxies folder holding nginx's own folder copied under another name. */
async function copyOfNginx(root: string): Promise<string> {
  const dir = path.join(root, "proxies");
  const copy = path.join(dir, COPY);
  await cp(path.join(PROJECT_ROOT, "proxies", "nginx"), copy, { recursive: true });
  const manifest = path.join(copy, "proxy.yml");
  const yaml = await readFile(manifest, "utf8");
  await writeFile(manifest, yaml.replace(/^name: nginx$/m, `name: ${COPY}`));
  return dir;
}

interface Run {
  groups: ReportGroup[];
  seconds: number;
  notOk: string[];
  out: string;
}

/** One `proxybench run` with these arguments, read back as the report's model. */
async function run(root: string, i: number, args: string[]): Promise<Run> {
  const out = path.join(root, `run-${i}`);
  const reps = [
    ...(REPETITIONS === undefined ? [] : ["--repetitions", REPETITIONS]),
    ...(NOISE_LIMIT === undefined ? [] : ["--noise-limit", NOISE_LIMIT]),
  ];
  await command(["run", ...args, ...reps, "--out", out], LOCK);
  const results = await readResults(out);
  // the run's own time, without the wait for the lock
  const seconds = (Date.parse(results.finishedAt ?? "") - Date.parse(results.startedAt)) / 1000;
  const notOk = results.cells.filter((c) => c.status !== "ok").map((c) => `${c.id} ${c.status}`);
  return { groups: buildReport(results).groups, seconds, notOk, out };
}

const column = (g: ReportGroup, proxy: string): ReportColumn | undefined =>
  g.columns.find((c) => c.proxy === proxy);

/** A change as the run's comparison table shows it, per scenario: `p99 ~ +1.20% (-3.10 to +5.00)`. */
function shownChange(g: ReportGroup, proxy: string, metric: "p50" | "p99"): string {
  const table = comparisonTable(g);
  const at = table.columns.findIndex((c) => c.proxy === proxy);
  const cell = table.rows.find((r) => r.metric === metric)?.cells[at];
  return `${g.scenario} ${metric} ${cell === undefined ? "-" : changeText(cell) || cellText(cell, String)}`;
}

function seconds(runs: readonly Run[]): string {
  const times = runs.map((r) => r.seconds).sort((a, b) => a - b);
  return times.length === 0
    ? ""
    : `; wall time ${times[0]!.toFixed(0)}-${times[times.length - 1]!.toFixed(0)} s a run`;
}

async function identical(root: string): Promise<void> {
  if (IDENTICAL === 0) return;
  const dir = await copyOfNginx(root);
  const runs: Run[] = [];
  let judged = 0;
  let within = 0;
  for (let i = 0; i < IDENTICAL; i++) {
    const r = await run(root, runs.length, ["--proxies-dir", dir, "--proxies", `nginx,${COPY}`]);
    runs.push(r);
    const changes = r.groups.flatMap((g) => Object.values(column(g, COPY)?.changes ?? {}));
    const intervals = changes.filter((d) => d.ci !== undefined).length;
    const shown = changes.filter((d) => d.differs).length;
    if (r.notOk.length === 0) {
      judged += 1;
      if (shown === 0) within += 1;
    }
    const seen = r.groups.map((g) => shownChange(g, COPY, "p99")).join(", ");
    // the family: requests per CPU-second shares CPU per request's test; req/s at a fixed rate has none
    const tests = r.groups[0]?.noise?.tests ?? 0;
    console.log(
      `identical ${i + 1}: ${r.seconds.toFixed(0)} s, ${changes.length} changes shown, ${tests} tested (${intervals} with an interval), ${shown} outside noise; ${seen}${r.notOk.length ? `; not ok: ${r.notOk.join(", ")}` : ""}`,
    );
  }
  console.log(rate("nginx and its copy: every change within noise", within, judged) + seconds(runs));
  if (judged < runs.length) console.log(`  ${runs.length - judged} run(s) with a cell not ok left out`);
}

/** Whether both proxies of a scenario were measured ok, so the table shows their change. */
const bothOk = (g: ReportGroup, a: string, b: string) =>
  column(g, a)?.status === "ok" && column(g, b)?.status === "ok";

async function overhead(root: string): Promise<void> {
  if (OVERHEAD === 0) return;
  const runs: Run[] = [];
  const tally = new Map<string, { judged: number; shown: number }>();
  const add = (key: string, judged: boolean, shown: boolean) => {
    const t = tally.get(key) ?? { judged: 0, shown: 0 };
    tally.set(key, { judged: t.judged + Number(judged), shown: t.shown + Number(judged && shown) });
  };
  for (let i = 0; i < OVERHEAD; i++) {
    const r = await run(root, 1000 + runs.length, []);
    runs.push(r);
    const differs = (g: ReportGroup) => column(g, "nginx")?.changes?.p50?.differs === true;
    for (const g of r.groups) add(g.scenario, bothOk(g, "direct", "nginx"), differs(g));
    add(
      "every scenario",
      r.groups.every((g) => bothOk(g, "direct", "nginx")),
      r.groups.every(differs),
    );
    const seen = r.groups.map((g) => shownChange(g, "nginx", "p50")).join(", ");
    console.log(
      `overhead ${i + 1}: ${r.seconds.toFixed(0)} s; ${seen}${r.notOk.length ? `; not ok: ${r.notOk.join(", ")}` : ""}`,
    );
  }
  for (const [where, t] of tally)
    console.log(rate(`nginx against direct, p50 interval excludes 0 (${where})`, t.shown, t.judged));
  console.log(`  runs with direct or nginx not ok are left out of a scenario's count${seconds(runs)}`);
}

/**
 * An offset per proxy for a whole block as large as the excess seen between nginx and its copy
 * under abba (rounds of a block correlated ~0.07): what it would cost if no order removed it.
 */
const BLOCK_SD = 0.029;

const SIMULATED: Array<[string, SimulatedCase]> = [
  ["identical, random order", { order: "random" }],
  ["identical, abba", { order: "abba" }],
  ["identical, random order, a periodic disturbance (5%)", { order: "random", periodic: 0.05 }],
  ["identical, abba, a periodic disturbance (5%)", { order: "abba", periodic: 0.05 }],
  ["identical, random order, an offset per proxy and block (2.9%)", { order: "random", blockSd: BLOCK_SD }],
];

function simulate(): void {
  if (SIMULATE === 0) return;
  console.log(
    `simulated: ${SIMULATE} runs per case, 2 scenarios x nginx and its copy, ${SIMULATED_ROUNDS} rounds`,
  );
  for (const [label, c] of SIMULATED) {
    console.log(rate(`  ${label}: any change shown as real`, simulateTables(c, SIMULATE).any, SIMULATE));
  }
  for (const shiftPct of [15, 30]) {
    const found = simulateTables({ order: "random", shiftPct }, SIMULATE).p50;
    console.log(rate(`  the copy's p50 +${shiftPct}% in one scenario: shown as real`, found, SIMULATE));
  }
}

simulate();
const root = await mkdtemp(path.join(os.tmpdir(), "proxybench-table-noise-"));
try {
  await identical(root);
  await overhead(root);
} finally {
  if (KEEP) console.log(`results kept in ${root}`);
  else await rm(root, { recursive: true, force: true });
}
