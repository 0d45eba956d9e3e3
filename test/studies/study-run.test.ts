import { cp, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { abEngine } from "../../src/engines/ab.js";
import * as engines from "../../src/engines/index.js";
import type { EngineApi } from "../../src/runner/run.js";
import { readResults } from "../../src/results/io.js";
import { runStudy } from "../../src/studies/run.js";
import { PROJECT_ROOT } from "../../src/util/paths.js";
import { liveProcesses } from "../../src/util/processes.js";

// The native subset of each study, end to end at short durations: real upstream, real nginx,
// HAProxy and Caddy, real k6, wrk and ab.

const studyEngines: EngineApi = {
  ...engines,
  getEngine: (name) => (name === "ab" ? abEngine : engines.getEngine(name)),
};

function sink() {
  let text = "";
  return { write: (s: string) => ((text += s), true), text: () => text };
}

async function run(name: string, overrides: Parameters<typeof runStudy>[1]) {
  const out = await mkdtemp(path.join(tmpdir(), `proxybench-study-${name}-`));
  const stdout = sink();
  const stderr = sink();
  const outcome = await runStudy(
    name,
    { repetitions: 1, warmupS: 1, durationS: 2, ...overrides, out },
    { engines: studyEngines, stdout, stderr, handleSignals: false },
  );
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
    // The ocelot column says skipped, in every row, never a number.
    const header = md.split("\n").find((l) => l.startsWith("|  ") || l.startsWith("| "))!;
    const cols = header.split("|").map((s) => s.trim());
    const ocelotCol = cols.indexOf("ocelot");
    expect(ocelotCol).toBeGreaterThan(0);
    const rows = md.split("\n").filter((l) => /^\| (Requests|Time|Complete|Failed|\d+%)/.test(l));
    expect(rows.length).toBeGreaterThan(10);
    for (const row of rows) expect(row.split("|")[ocelotCol]?.trim()).toBe("skipped");
    expect(liveProcesses()).toEqual([]);
  });

  it("llrp: haproxy, nginx and caddy at maximum throughput with wrk, crank-compare table", async () => {
    const { outcome, out } = await run("llrp", { durationS: 2 });
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
    expect(md).toMatch(
      /\| Requests\/sec +\| +skipped +\| +skipped +\| +[\d,]+ +\| +[\d,]+ +\| +skipped +\| +[\d,]+ +\|/,
    );
    expect(md).toMatch(/Baseline \*\*yarp\*\* was not measured/);
    expect(md).toContain("Config parity");
  });

  it("yarp-vs-httpclient: direct, nginx and haproxy at 100 VUs with k6, k6-summary table", async () => {
    const { outcome, out } = await run("yarp-vs-httpclient", { loads: ["100vus"], durationS: 3 });
    expect(outcome.split.skipped.map((s) => s.proxy)).toEqual(["yarp", "aspnet-httpclient"]);
    expect(outcome.results.cells.map((c) => [c.proxy, c.load.label])).toEqual([
      ["direct", "100vus"],
      ["nginx", "100vus"],
      ["haproxy", "100vus"],
    ]);
    const md = await readFile(path.join(out, "study.md"), "utf8");
    expect(md).toMatch(/\| http_req_duration avg \| +skipped +\| +skipped +\| +[\d.]+ms +\|/);
    expect(md).toMatch(/\| data_received +\|.*MB/);
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
    expect(direct?.status).toBe("ok");
    expect(nginx?.status).toBe("invalid");
    expect(nginx?.reasons.join("; ")).toMatch(/404/);
    const md = await readFile(path.join(out, "study.md"), "utf8");
    const rps = md.split("\n").find((l) => l.startsWith("| Requests per second"));
    expect(rps?.split("|").map((x) => x.trim())).toEqual([
      "",
      "Requests per second",
      expect.stringMatching(/^[\d,.]+$/),
      "skipped",
      "invalid",
      "",
    ]);
    expect(md).toMatch(/- \*\*nginx\*\* at 1000c is invalid: .*404/);
  });
});
