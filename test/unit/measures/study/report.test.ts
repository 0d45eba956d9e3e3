import path from "node:path";
import { describe, expect, it } from "vitest";
import { readResults } from "../../../../src/results/io.js";
import type { Results } from "../../../../src/results/schema.js";
import { loadStudies } from "../../../../src/measures/study/load.js";
import {
  describeStudyLoad,
  formatK6Data,
  formatK6Duration,
  renderStudyReport,
  studyGroups,
  summariseReasons,
} from "../../../../src/measures/study/report.js";
import type { StudyManifest } from "../../../../src/measures/study/schema.js";
import { cell, results as madeResults, roundsOf } from "../../../support/report/build.js";

const FIXTURES = path.join(import.meta.dirname, "..", "..", "..", "fixtures", "studies");
const results = (name: string) => readResults(path.join(FIXTURES, `${name}.results.json`));
const study = async (name: string): Promise<StudyManifest> => {
  const s = (await loadStudies()).get(name);
  if (!s) throw new Error(`no study ${name}`);
  return s.manifest;
};

/** Cells of a markdown table row, trimmed, without the outer pipes. */
function row(md: string, label: string): string[] {
  const line = md.split("\n").find((l) => l.startsWith(`| ${label} `));
  if (!line) throw new Error(`no row '${label}' in:\n${md}`);
  return line
    .split("|")
    .slice(1, -1)
    .map((c) => c.trim());
}

describe("k6-summary layout (yarp-vs-httpclient)", () => {
  it("one column per proxy, skipped ones say so in every row", async () => {
    const md = renderStudyReport({
      study: await study("yarp-vs-httpclient"),
      results: await results("yarp-vs-httpclient"),
    });
    expect(row(md, "metric")).toEqual(["metric", "yarp", "aspnet-httpclient", "direct", "nginx", "haproxy"]);
    for (const label of [
      "http_req_duration avg",
      "min",
      "med",
      "max",
      "p(90)",
      "p(95)",
      "http_req_failed",
      "http_reqs",
      "data_received",
    ]) {
      const cells = row(md, label);
      expect(cells.slice(1, 3)).toEqual(["skipped", "skipped"]);
      for (const c of cells.slice(3)) expect(c).toMatch(/^[\d,.]+(ms|s|µs|%|\/s)$|MB/);
    }
    expect(row(md, "http_req_failed").slice(3)).toEqual(["0.00%", "0.00%", "0.00%"]);
  });

  it("shows the median over repetitions in k6's units", async () => {
    const r = await results("yarp-vs-httpclient");
    const md = renderStudyReport({ study: await study("yarp-vs-httpclient"), results: r });
    const direct = r.cells.find((c) => c.proxy === "direct")!.repetitions[0]!;
    expect(row(md, "med")[3]).toBe(formatK6Duration(direct.latencyMs.p50));
    expect(row(md, "data_received")[3]).toBe(formatK6Data(direct.bytesReceived!, direct.durationS));
  });

  it("a loadgen-bound cell shows its status and reasons, never numbers", async () => {
    const r = structuredClone(await results("yarp-vs-httpclient"));
    const nginx = r.cells.find((c) => c.proxy === "nginx")!;
    nginx.status = "loadgen-bound";
    nginx.reasons = ["the load generator used 0.97 of its 1 core"];
    const md = renderStudyReport({ study: await study("yarp-vs-httpclient"), results: r });
    for (const label of ["http_req_duration avg", "p(95)", "http_reqs", "data_received"]) {
      expect(row(md, label)[4]).toBe("loadgen-bound");
    }
    expect(md).toContain(
      "- **nginx** at 100vus is loadgen-bound: the load generator used 0.97 of its 1 core",
    );
  });
});

describe("crank-compare layout (llrp)", () => {
  it("no % columns when the baseline (yarp) was not measured here, and it says so", async () => {
    const md = renderStudyReport({ study: await study("llrp"), results: await results("llrp") });
    expect(row(md, "load")).toEqual([
      "load",
      "yarp",
      "aspnet-httpclient",
      "haproxy",
      "nginx",
      "envoy",
      "caddy",
    ]);
    expect(row(md, "Requests/sec").slice(1, 3)).toEqual(["skipped", "skipped"]);
    expect(md).toContain("Baseline **yarp** was not measured: no % changes against it.");
  });

  it("with a measured baseline: value and signed % against it, first column", async () => {
    const r = await results("llrp");
    const s = { ...(await study("llrp")), baseline: "haproxy" };
    const md = renderStudyReport({ study: s, results: r });
    expect(row(md, "load")).toEqual([
      "load",
      "haproxy",
      "yarp",
      "",
      "aspnet-httpclient",
      "",
      "nginx",
      "",
      "envoy",
      "",
      "caddy",
      "",
    ]);
    const rps = (p: string) => r.cells.find((c) => c.proxy === p)!.repetitions[0]!.rps;
    const expected = ((rps("nginx") - rps("haproxy")) / rps("haproxy")) * 100;
    const cells = row(md, "Requests/sec");
    // one repetition each: no interval, so the change is marked within noise
    expect(cells[7]).toBe(`~ ${expected < 0 ? "-" : "+"}${Math.abs(expected).toFixed(2)}%`);
    expect(cells.slice(2, 4)).toEqual(["skipped", ""]);
    // Bad responses get no % column value.
    expect(row(md, "Bad responses")[7]).toBe("");
    // Mean latency in microseconds.
    const mean = r.cells.find((c) => c.proxy === "haproxy")!.repetitions[0]!.latencyMs.mean * 1000;
    expect(row(md, "Mean latency (us)")[1]).toBe(Math.round(mean).toLocaleString("en-US"));
  });
});

describe("crank-compare layout: what the noise allows of each % change", () => {
  const scenario = "llrp-throughput";
  const run = (n: number) =>
    madeResults([
      cell("yarp", roundsOf(n, { seed: 1 }), { scenario }),
      cell("nginx", roundsOf(n, { seed: 2 }), { scenario }),
      cell("haproxy", roundsOf(n, { factor: 0.8, seed: 3 }), { scenario }),
    ]);

  it("an identical proxy is within noise (~), a faster one's latency is not; each with its interval", async () => {
    const md = renderStudyReport({ study: await study("llrp"), results: run(10) });
    const header = row(md, "load");
    const after = (proxy: string) => header.indexOf(proxy) + 1;
    for (const label of ["Requests", "Mean latency (us)", "Requests/sec"])
      expect(row(md, label)[after("nginx")]).toMatch(/^~ [+-]\d+\.\d\d% \([+-]\d+\.\d\d to [+-]\d+\.\d\d\)$/);
    // the slowest request: shown, never compared, for the faster proxy too
    for (const proxy of ["nginx", "haproxy"]) expect(row(md, "Max latency (us)")[after(proxy)]).toBe("");
    expect(md).toContain("Max latency is one request (the slowest): shown, never compared.");
    expect(row(md, "Mean latency (us)")[after("haproxy")]).toMatch(
      /^-\d+\.\d\d% \(-\d+\.\d\d to -\d+\.\d\d\)$/,
    );
    expect(row(md, "Requests/sec")[after("haproxy")]).toMatch(/^~ /);
    expect(row(md, "Bad responses")[after("nginx")]).toBe("");
    expect(md).toContain("Holm over the 6 changes of this table at alpha 0.05");
  });

  it("with the seed's 3 repetitions: every change ~, and the note says how many would give an interval", async () => {
    const md = renderStudyReport({ study: await study("llrp"), results: run(3) });
    expect(md).toContain(
      "With 3 repetitions per proxy no change here has an interval (Holm over the 6 changes of this table at alpha 0.05 needs 8: --repetitions 8)",
    );
    expect(row(md, "Mean latency (us)")[row(md, "load").indexOf("haproxy") + 1]).toMatch(/^~ -\d+\.\d\d%$/);
  });
});

describe("ab layout (ocelot)", () => {
  it("an NGINX answering 404 is invalid, with the code, in every row", async () => {
    const md = renderStudyReport({ study: await study("ocelot"), results: await results("ocelot-nginx404") });
    expect(row(md, "")).toEqual(["", "direct", "ocelot", "nginx"]);
    const labels = [
      "Requests per second",
      "Time per request (ms, mean)",
      "Complete requests",
      "50% (ms)",
      "99% (ms)",
      "100% (longest request, ms)",
    ];
    for (const label of labels) {
      const cells = row(md, label);
      expect(cells[1]).toMatch(/^[\d,.]+$/);
      expect(cells.slice(2)).toEqual(["skipped", "invalid"]);
    }
    expect(md).toMatch(/- \*\*nginx\*\* at 1000c is invalid: probe: GET \/api\/values: 404/);
    expect(md).toMatch(/Not measured here \(never shown as numbers\):\n\n- \*\*ocelot\*\*: image only/);
  });
});

describe("escaping", () => {
  it("a crafted proxy name cannot break the table or inject markup", async () => {
    const r: Results = structuredClone(await results("ocelot-nginx404"));
    const evil = "x|<img src=x onerror=alert(1)>[a](http://e)";
    for (const c of r.cells) if (c.proxy === "direct") c.proxy = evil;
    const s = { ...(await study("ocelot")), proxies: [evil, "ocelot", "nginx"] };
    const md = renderStudyReport({ study: s, results: r });
    expect(md).not.toContain("<img");
    expect(md).not.toMatch(/[^\\]\]\(http/); // `\]` is no link
    expect(row(md, "Requests per second")).toHaveLength(4);
  });
});

describe("studyGroups", () => {
  it("keeps the study's proxy order and puts skipped proxies in as columns", async () => {
    const groups = studyGroups(await study("llrp"), await results("llrp"), []);
    expect(groups).toHaveLength(1);
    expect(groups[0]?.columns.map((c) => [c.proxy, c.status])).toEqual([
      ["yarp", "skipped"],
      ["aspnet-httpclient", "skipped"],
      ["haproxy", "ok"],
      ["nginx", "ok"],
      ["envoy", "skipped"],
      ["caddy", "ok"],
    ]);
  });
});

describe("k6 formats", () => {
  const durations: Array<[number, string]> = [
    [0.31249, "312.49µs"],
    [94.38, "94.38ms"],
    [1050, "1.05s"],
    [Number.NaN, "n/a"],
  ];
  for (const [ms, text] of durations)
    it(`duration ${ms} ms -> ${text}`, () => expect(formatK6Duration(ms)).toBe(text));
  const data: Array<[number, number, string]> = [
    [53_000_000, 31, "53 MB 1.7 MB/s"],
    [807_000, 1, "807 kB 807 kB/s"],
    [999, 0, "999 B"],
  ];
  for (const [bytes, s, text] of data)
    it(`data ${bytes} B in ${s} s -> ${text}`, () => expect(formatK6Data(bytes, s)).toBe(text));
});

describe("describeStudyLoad", () => {
  it("a fixed-count load has no duration and says whether connections are reused", () => {
    expect(
      describeStudyLoad({
        label: "1000c",
        model: "fixed-count",
        connections: 1000,
        requests: 20000,
        durationS: 10,
      }),
    ).toBe("fixed-count, 1000 connections, 20000 requests, no keep-alive");
  });
  it("a timed load keeps its duration", () => {
    expect(describeStudyLoad({ label: "100vus", model: "constant-vus", vus: 100, durationS: 30 })).toBe(
      "constant-vus, 100 VUs, 30 s",
    );
  });
});

describe("summariseReasons", () => {
  it("collapses reasons that differ only in their figures, keeps the others", () => {
    expect(
      summariseReasons([
        "the load generator's core was 100% busy (0.14 used by the load generator itself)",
        "the load generator's core was 99% busy (0.27 used by the load generator itself)",
        "3 non-2xx responses of 20000 (502: 3)",
        "the load generator's core was 101% busy (0.12 used by the load generator itself)",
      ]),
    ).toEqual([
      "the load generator's core was 100% busy (0.14 used by the load generator itself) (and 2 more like it)",
      "3 non-2xx responses of 20000 (502: 3)",
    ]);
  });
});
