import { cp, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as engines from "../../../../src/engines/index.js";
import type { EngineApi } from "../../../../src/measures/wall-clock/context.js";
import { readResults } from "../../../../src/results/io.js";
import type { Results } from "../../../../src/results/schema.js";
import type { StudyOutcome } from "../../../../src/measures/study/run.js";
import { runStudy } from "../../../../src/measures/study/study.js";
import { PROJECT_ROOT } from "../../../../src/util/paths.js";
import { liveProcesses } from "../../../../src/util/processes.js";

// The native subset of each study, end to end at short durations: real upstream, real nginx,
// HAProxy and Caddy, real k6, wrk and ab.

const studyEngines: EngineApi = engines;

function sink() {
  let text = "";
  return { write: (s: string) => ((text += s), true), text: () => text };
}

/** Cells of a markdown table row, trimmed, without the outer pipes. */
function tableRow(md: string, label: string): string[] {
  const line = md.split("\n").find((l) => l.startsWith(`| ${label} `));
  if (!line) throw new Error(`no row '${label}' in:\n${md}`);
  return line
    .split("|")
    .slice(1, -1)
    .map((c) => c.trim());
}

/**
 * Every proxy column of `rowLabel` shows a number when its cell is ok, else the cell's status
 * (loadgen-bound, when other work takes the load generator's core), and `skipped` for a proxy
 * that did not run: never a number for a cell that is not ok.
 */
function expectColumnsFollowStatus(
  md: string,
  headerLabel: string,
  rowLabel: string,
  results: Results,
  number: RegExp,
) {
  const header = tableRow(md, headerLabel);
  const values = tableRow(md, rowLabel);
  let checked = 0;
  header.forEach((proxy, i) => {
    if (i === 0 || proxy === "") return;
    const cell = results.cells.find((c) => c.proxy === proxy);
    const shown = values[i] ?? "";
    if (!cell) expect(shown, proxy).toBe("skipped");
    else if (cell.status === "ok") expect(shown, proxy).toMatch(number);
    else expect(shown, proxy).toBe(cell.status);
    checked++;
  });
  expect(checked).toBeGreaterThan(0);
}

async function run(name: string, overrides: Parameters<typeof runStudy>[1]) {
  const out = await mkdtemp(path.join(tmpdir(), `proxybench-study-${name}-`));
  const stdout = sink();
  const stderr = sink();
  const outcome = (await runStudy(
    name,
    { repetitions: 1, warmupS: 0.5, durationS: 1, ...overrides, out },
    { engines: studyEngines, stdout, stderr, handleSignals: false },
  )) as StudyOutcome;
  return { outcome, out, stdout: stdout.text(), stderr: stderr.text() };
}

describe("studies, native subset", () => {
  it("ocelot: direct and nginx measured with ab at 1000 connections, ocelot skipped", async () => {
    const { outcome, out, stdout, stderr } = await run("ocelot", {});
    expect(stderr).toMatch(/skipped ocelot: image only/);
    expect(outcome.results.cells.map((c) => [c.proxy, c.engine, c.load.connections])).toEqual([
      ["direct", "ab", 1000],
      ["nginx", "ab", 1000],
    ]);
    const saved = await readResults(out);
    expect(saved.settings.study).toBe("ocelot");
    expect(saved.skipped.map((s) => s.proxy)).toEqual(["ocelot"]);
    const md = await readFile(path.join(out, "study.md"), "utf8");
    expect(stdout).toContain(md);
    expect(md).toMatch(/\| Requests per second +\|/);
    expect(md).toMatch(/\| 99% \(ms\) +\|/);
    expect(md).toMatch(/- \*\*ocelot\*\*: image only/);
    // Every row: numbers for ok cells, the status otherwise, `skipped` for ocelot.
    for (const label of [
      "Requests per second",
      "Time per request (ms, mean)",
      "Complete requests",
      "50% (ms)",
      "99% (ms)",
    ]) {
      expectColumnsFollowStatus(md, "", label, outcome.results, /^\d[\d,.]*$/);
    }
    expect(tableRow(md, "Requests per second")[2]).toBe("skipped");
    expect(liveProcesses()).toEqual([]);
  });

  it("llrp: haproxy, nginx and caddy at maximum throughput with wrk, crank-compare table", async () => {
    const { outcome, out } = await run("llrp", {});
    expect(outcome.split.runnable).toEqual(["haproxy", "nginx", "caddy"]);
    expect(outcome.results.cells.map((c) => [c.proxy, c.engine])).toEqual([
      ["haproxy", "wrk"],
      ["nginx", "wrk"],
      ["caddy", "wrk"],
    ]);
    const md = await readFile(path.join(out, "study.md"), "utf8");
    expect(md).toMatch(
      /\| load +\| +yarp +\| +aspnet-httpclient +\| +haproxy +\| +nginx +\| +envoy +\| +caddy +\|/,
    );
    for (const label of ["Requests", "Mean latency (us)", "Requests/sec"]) {
      expectColumnsFollowStatus(md, "load", label, outcome.results, /^\d[\d,]*$/);
    }
    expect(md).toMatch(/Baseline \*\*yarp\*\* was not measured/);
    expect(md).toContain("Config parity");
  });

  it("yarp-vs-httpclient: direct, nginx and haproxy at 100 VUs with k6, k6-summary table", async () => {
    const { outcome, out } = await run("yarp-vs-httpclient", { loads: ["100vus"], durationS: 1.5 });
    expect(outcome.split.skipped.map((s) => s.proxy)).toEqual(["yarp", "aspnet-httpclient"]);
    expect(outcome.results.cells.map((c) => [c.proxy, c.load.label])).toEqual([
      ["direct", "100vus"],
      ["nginx", "100vus"],
      ["haproxy", "100vus"],
    ]);
    const md = await readFile(path.join(out, "study.md"), "utf8");
    expectColumnsFollowStatus(md, "metric", "http_req_duration avg", outcome.results, /^[\d.]+ms$/);
    expectColumnsFollowStatus(md, "metric", "data_received", outcome.results, / MB\/s$/);
    // 75 ms upstream latency: the median is at least that for every measured column.
    for (const cell of outcome.results.cells.filter((c) => c.status === "ok")) {
      expect(cell.repetitions[0]?.latencyMs.p50).toBeGreaterThanOrEqual(75);
    }
  });

  it("ocelot with an NGINX that answers 404 (as the original's did): its cell is invalid, with the code", async () => {
    // A user proxies folder overrides the built-in nginx: same manifest, a config that 404s the path.
    const dir = await mkdtemp(path.join(tmpdir(), "proxybench-nginx404-"));
    await cp(path.join(PROJECT_ROOT, "proxies", "nginx"), path.join(dir, "nginx"), { recursive: true });
    const conf = path.join(dir, "nginx", "nginx.conf");
    const text = await readFile(conf, "utf8");
    const broken = text.replace(
      /location \/ \{/,
      "location = /api/values { return 404; }\n        location / {",
    );
    expect(broken).not.toBe(text);
    await writeFile(conf, broken);

    const { outcome, out } = await run("ocelot", { proxiesDirs: [dir] });
    const nginx = outcome.results.cells.find((c) => c.proxy === "nginx");
    const direct = outcome.results.cells.find((c) => c.proxy === "direct");
    expect(["ok", "loadgen-bound", "noisy"]).toContain(direct?.status); // the CPU may be shared
    expect(nginx?.status).toBe("invalid");
    expect(nginx?.reasons.join("; ")).toMatch(/404/);
    const md = await readFile(path.join(out, "study.md"), "utf8");
    expectColumnsFollowStatus(md, "", "Requests per second", outcome.results, /^\d[\d,.]*$/);
    expect(tableRow(md, "Requests per second").slice(2)).toEqual(["skipped", "invalid"]);
    expect(md).toMatch(/- \*\*nginx\*\* at 1000c is invalid: .*404/);
  });
});
