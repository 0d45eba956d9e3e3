import { describe, expect, it } from "vitest";
import {
  renderGoBenchLines,
  renderGoBenchSection,
  renderGoBenchTable,
} from "../../../../src/measures/study/go-bench.js";
import type { StudyColumn, StudyGroup, StudyValues } from "../../../../src/measures/study/columns.js";
import { StudyManifest, type StudyPath } from "../../../../src/measures/study/schema.js";

const values = (meanMs: number, requests: number): StudyValues => ({
  rps: requests / 5,
  latencyMs: {
    min: 0.05,
    mean: meanMs,
    p50: meanMs * 0.8,
    p90: meanMs * 2,
    p95: meanMs * 3,
    p99: meanMs * 5,
    max: 9,
  },
  failedPct: 0,
  requests,
  badResponses: 0,
  durationS: 5,
  percentilesMs: {},
});
const ok = (proxy: string, meanMs: number, requests: number): StudyColumn => ({
  proxy,
  load: "default",
  status: "ok",
  reasons: [],
  repetitions: 3,
  values: values(meanMs, requests),
});
const groups: StudyGroup[] = [
  {
    scenario: "pingpong-grpc",
    loads: [],
    columns: [
      ok("direct", 0.25, 5000),
      ok("nginx", 0.5, 5000),
      {
        proxy: "grpc-gateway",
        load: "",
        status: "skipped",
        reasons: ["does not front grpc"],
        repetitions: 0,
      },
    ],
  },
  {
    scenario: "pingpong-rest",
    loads: [],
    columns: [
      ok("direct", 0.2, 5000),
      { proxy: "grpc-gateway", load: "default", status: "invalid", reasons: ["2 non-2xx"], repetitions: 1 },
    ],
  },
];
const paths: StudyPath[] = [
  { name: "BenchmarkDirectGrpc/pingpong_proto_ingestion", scenario: "pingpong-grpc", proxy: "direct" },
  { name: "BenchmarkNginxGrpc/pingpong_proto_ingestion", scenario: "pingpong-grpc", proxy: "nginx" },
  {
    name: "BenchmarkGoGatewayRest/pingpong_json_ingestion",
    scenario: "pingpong-rest",
    proxy: "grpc-gateway",
  },
  { name: "BenchmarkDirectRestHTTP/pingpong_json_ingestion", scenario: "pingpong-rest", proxy: "direct" },
];
const references = [
  "BenchmarkDirectGrpc/pingpong_proto_ingestion",
  "BenchmarkDirectRestHTTP/pingpong_json_ingestion",
];

describe("the go-bench layout", () => {
  it("one go test line per path: N calls and the mean latency in ns/op; no figures for a path that is not ok", () => {
    expect(renderGoBenchLines(paths, groups).split("\n")).toEqual([
      "```",
      "BenchmarkDirectGrpc/pingpong_proto_ingestion   \t    5000\t    250000 ns/op",
      "BenchmarkNginxGrpc/pingpong_proto_ingestion    \t    5000\t    500000 ns/op",
      "BenchmarkGoGatewayRest/pingpong_json_ingestion \tinvalid (no figures)",
      "BenchmarkDirectRestHTTP/pingpong_json_ingestion\t    5000\t    200000 ns/op",
      "```",
    ]);
  });

  it("the paths with their change against each reference", () => {
    const lines = renderGoBenchTable(paths, references, groups).split("\n");
    expect(lines[0]).toMatch(
      /\| path +\| proxy +\| ns\/op \(mean\) \|.*\| vs DirectGrpc \| vs DirectRestHTTP \|/,
    );
    expect(lines[2]).toMatch(
      /^\| DirectGrpc +\| direct +\| +250,000 \|.*\| +\(reference\) \| +\+25(\.0+)?% \|$/,
    );
    expect(lines[3]).toMatch(
      /^\| NginxGrpc +\| nginx +\| +500,000 \|.*\| +\+100(\.0+)?% \| +\+150(\.0+)?% \|$/,
    );
    expect(lines[4]).toMatch(/^\| GoGatewayRest +\| grpc-gateway +\| +invalid +\|/);
    expect(lines[4]).not.toMatch(/\d/);
  });

  it("only for a go-bench study, whose paths name its proxies and scenarios", () => {
    const base = {
      name: "g",
      title: "t",
      description: "d",
      source: { seed: "003", title: "t", compared: "c", load: "l", reported: "r" },
      proxies: ["direct", "nginx"],
      scenarios: ["pingpong-grpc"],
      durationS: 5,
      engine: "k6",
    };
    const study = StudyManifest.parse({
      ...base,
      layout: "go-bench",
      paths: paths.slice(0, 2),
      references: [references[0]],
    });
    expect(renderGoBenchSection(study, groups)).toHaveLength(3);
    expect(renderGoBenchSection({ ...study, layout: "k6-summary" }, groups)).toEqual([]);
    const issues = (extra: object) =>
      StudyManifest.safeParse({ ...base, ...extra }).error?.issues.map(
        (i) => `${i.path.join(".")}: ${i.message}`,
      );
    expect(issues({ layout: "go-bench" })).toEqual([
      "paths: layout go-bench needs the paths, one per benchmark line",
    ]);
    expect(issues({ layout: "k6-summary", paths })).toEqual(["paths: only for layout go-bench"]);
    expect(issues({ layout: "go-bench", paths, references: ["BenchmarkNope"] })).toEqual([
      "paths.2.proxy: 'grpc-gateway' is not one of the study's proxies",
      "paths.2.scenario: 'pingpong-rest' is not one of the study's scenarios",
      "paths.3.scenario: 'pingpong-rest' is not one of the study's scenarios",
      "references.0: 'BenchmarkNope' is not the name of one of the paths",
    ]);
  });
});
