/**
 * Counted-run benchmark (`npm run bench:instructions`). Prints figures; asserts nothing.
 *
 * One `proxybench count` of passthrough (1000 counted requests after 200, over 2
 * keep-alive connections), 10 interleaved repetitions of five proxies:
 *   nginx, haproxy             the built-in ones
 *   nginx-aa, haproxy-aa       identical copies (A/A)
 *   nginx-hdr                  nginx with `proxy_set_header X-A a;` (a small, real change)
 * then:
 * (a) the spread, (max - min) / median, of instructions per request over the first 5
 *     repetitions of nginx and haproxy (target <= 0.1%);
 * (b) A/A: 10 comparisons of 5 repetitions of nginx against 5 of nginx-aa, and 10 of haproxy
 *     against haproxy-aa, the repetitions drawn with a fixed seed: none may be a change (20/20);
 * (c) the change: 10 comparisons of 5 repetitions of nginx against 5 of nginx-hdr: each must
 *     be called more work (10/10);
 * (d) the time of one cell of 1000 requests, start of the proxy under valgrind to its stop
 *     (target < 10 s), from a run of one repetition of nginx and of haproxy.
 * Bounded: about 60 repetitions of a few seconds.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { median } from "simple-statistics";
import { runInstructions } from "../src/measures/counted/run.js";
import type { CountedCell, InstructionsResults } from "../src/measures/counted/schema.js";
import {
  compareCountedCells,
  compareCounts,
  spreadPct,
  type InstructionsComparison,
} from "../src/measures/counted/compare.js";
import { mulberry32, shuffle } from "../src/runner/rounds.js";
import { PROJECT_ROOT } from "../src/util/paths.js";
import { stopAll } from "../src/util/processes.js";

const REPETITIONS = 10;
const DRAWN = 5;
const DRAWS = 10;
const SEED = 15;

async function main(): Promise<void> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), "proxybench-bench-instr-"));
  try {
    console.log(`counted-run benchmark: ${os.availableParallelism()} cores, ${os.cpus()[0]?.model ?? "?"}`);
    console.log(`load average before: ${loadAverage()}`);
    const proxiesDir = await variants(tmp);
    const started = Date.now();
    const { results, dir } = await runInstructions({
      proxies: ["nginx", "haproxy", "nginx-aa", "haproxy-aa", "nginx-hdr"],
      scenarios: ["passthrough"],
      proxiesDirs: [proxiesDir],
      repetitions: REPETITIONS,
      out: path.join(tmp, "run"),
      log: () => undefined,
    });
    const s = results.settings;
    console.log(
      `run: ${REPETITIONS} repetitions x 5 proxies, ${s.requests} requests after ${s.warmupRequests}, ` +
        `${s.connections} connections, valgrind ${s.valgrind}, ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    spreads(results);
    aa(results);
    await change(results, dir);
    await oneCell(tmp);
    console.log(`load average after: ${loadAverage()}`);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

function loadAverage(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
}

/** The A/A copies and the one-header change, as proxy folders. */
async function variants(tmp: string): Promise<string> {
  const dir = path.join(tmp, "proxies");
  for (const [from, to] of [
    ["nginx", "nginx-aa"],
    ["haproxy", "haproxy-aa"],
    ["nginx", "nginx-hdr"],
  ] as const) {
    await cp(path.join(PROJECT_ROOT, "proxies", from), path.join(dir, to), { recursive: true });
    const yml = path.join(dir, to, "proxy.yml");
    await writeFile(yml, (await readFile(yml, "utf8")).replace(`name: ${from}`, `name: ${to}`));
  }
  const conf = path.join(dir, "nginx-hdr", "nginx.conf");
  const text = await readFile(conf, "utf8");
  const changed = text.replace(
    "proxy_set_header Host $http_host;",
    "$&\n            proxy_set_header X-A a;",
  );
  if (changed === text) throw new Error(`${conf}: the line to add a header after was not found`);
  await writeFile(conf, changed);
  return dir;
}

function cell(results: InstructionsResults, proxy: string): CountedCell {
  const found = results.cells.find((c) => c.proxy === proxy);
  if (!found || found.status !== "ok") {
    throw new Error(`${proxy}: ${found ? `${found.status}: ${found.reasons.join("; ")}` : "not run"}`);
  }
  return found;
}

function perRequest(c: CountedCell): number[] {
  return c.repetitions.map((r) => r.instructionsPerRequest ?? NaN);
}

function spreads(results: InstructionsResults): void {
  for (const proxy of ["nginx", "haproxy"]) {
    const values = perRequest(cell(results, proxy)).slice(0, 5);
    const list = values.map((v) => v.toFixed(1)).join(", ");
    console.log(
      `(a) ${proxy}: instructions/request over 5 repetitions: ${list}; median ${median(values).toFixed(1)}, spread ${spreadPct(values).toFixed(4)}% (target <= 0.1%)`,
    );
  }
}

/** `n` of `values`, drawn without replacement. */
function draw<T>(values: readonly T[], n: number, next: () => number): T[] {
  return shuffle(values, next).slice(0, n);
}

function draws(base: number[], head: number[], next: () => number): InstructionsComparison[] {
  return Array.from({ length: DRAWS }, () => compareCounts(draw(base, DRAWN, next), draw(head, DRAWN, next)));
}

function aa(results: InstructionsResults): void {
  const next = mulberry32(SEED);
  for (const proxy of ["nginx", "nginx-aa", "haproxy", "haproxy-aa", "nginx-hdr"]) {
    const values = perRequest(cell(results, proxy));
    console.log(
      `    ${proxy}: all ${values.length} repetitions: median ${median(values).toFixed(1)}, spread ${spreadPct(values).toFixed(4)}%`,
    );
  }
  const byProxy = ["nginx", "haproxy"].map((p) => ({
    p,
    results: draws(perRequest(cell(results, p)), perRequest(cell(results, `${p}-aa`)), next),
  }));
  for (const { p, results: r } of byProxy) {
    const tally = ["unchanged", "inconclusive", "more-work", "less-work"].map(
      (v) => `${r.filter((c) => c.verdict === v).length} ${v}`,
    );
    console.log(`    A/A ${p} vs ${p}-aa: ${tally.join(", ")}`);
  }
  const all = byProxy.flatMap((b) => b.results);
  const quiet = all.filter((c) => c.verdict === "unchanged" || c.verdict === "inconclusive").length;
  const unchanged = all.filter((c) => c.verdict === "unchanged").length;
  const worst = Math.max(...all.map((c) => Math.abs(c.changePct)));
  console.log(
    `(b) A/A (nginx vs nginx-aa, haproxy vs haproxy-aa, ${DRAWN} vs ${DRAWN} repetitions drawn): quiet in ${quiet} of ${all.length} ` +
      `(${unchanged} unchanged, ${quiet - unchanged} inconclusive); largest |change| ${worst.toFixed(4)}%`,
  );
}

async function change(results: InstructionsResults, dir: string): Promise<void> {
  const next = mulberry32(SEED + 1);
  const all = draws(perRequest(cell(results, "nginx")), perRequest(cell(results, "nginx-hdr")), next);
  const called = all.filter((c) => c.verdict === "more-work").length;
  const changes = all.map((c) => c.changePct);
  console.log(
    `(c) nginx + 'proxy_set_header X-A a;': called more work in ${called} of ${all.length}; change ` +
      `${Math.min(...changes).toFixed(3)}% to ${Math.max(...changes).toFixed(3)}%`,
  );
  const where = await compareCountedCells(
    { cell: cell(results, "nginx"), dir },
    { cell: cell(results, "nginx-hdr"), dir },
  );
  const top = (where.where?.self ?? [])
    .slice(0, 3)
    .map((f) => `${f.name} ${f.delta >= 0 ? "+" : ""}${f.delta.toFixed(1)}`);
  console.log(`    where it went (self, instructions/request): ${top.join(", ")}`);
}

async function oneCell(tmp: string): Promise<void> {
  for (const proxy of ["nginx", "haproxy"]) {
    const t0 = Date.now();
    const { results } = await runInstructions({
      proxies: [proxy],
      scenarios: ["passthrough"],
      repetitions: 1,
      out: path.join(tmp, `one-${proxy}`),
      log: () => undefined,
    });
    const rep = cell(results, proxy).repetitions[0];
    console.log(
      `(d) one cell of 1000 requests, ${proxy}: ${((Date.now() - t0) / 1000).toFixed(1)} s end to end ` +
        `(upstream, valgrind start, probe, 200 warm-up, 1000 counted in ${rep?.wallS.toFixed(1)} s, stop; target < 10 s)`,
    );
  }
}

main().catch(async (err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  await stopAll();
  process.exitCode = 1;
});
