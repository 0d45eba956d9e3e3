import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  loadManifests,
  loadProxyFile,
  parseManifest,
  type LoadedProxy,
  type ManifestSet,
} from "../../../../src/manifests/load.js";
import {
  BUILTIN_STUDIES_DIR,
  checkStudyReferences,
  findStudy,
  loadStudies,
  loadStudyFile,
} from "../../../../src/measures/study/load.js";
import { StudyManifest, studyBaseline } from "../../../../src/measures/study/schema.js";
import { ProxyManifest } from "../../../../src/manifests/schema.js";
import { PROJECT_ROOT } from "../../../../src/util/paths.js";

const VALID = `name: demo
title: A demo study
description: Two proxies.
source:
  seed: "002"
  title: Demo
  compared: a and b
  load: ab
  reported: req/s
proxies: [direct, nginx]
scenarios: [passthrough]
durationS: 5
engine: ab
layout: ab
`;

describe("parsing study.yml", () => {
  it("accepts a valid study and fills defaults", () => {
    const { manifest } = parseManifest(StudyManifest, VALID, "study.yml");
    expect(manifest).toMatchObject({ repetitions: 1, warmupS: 0, layout: "ab" });
    expect(studyBaseline(manifest)).toBe("direct");
  });

  const broken: Array<{ name: string; text: string; error: RegExp }> = [
    {
      name: "unknown layout, named with its line",
      text: VALID.replace("layout: ab", "layout: excel"),
      error: /^s\.yml:14: layout: Invalid option/m,
    },
    {
      name: "a misspelt key",
      text: VALID.replace("durationS: 5", "duration: 5"),
      error: /^s\.yml:12: duration: Unrecognized key/m,
    },
    {
      name: "a bad seed number inside source",
      text: VALID.replace('seed: "002"', "seed: two"),
      error: /^s\.yml:5: source\.seed: three digits/m,
    },
    {
      name: "a proxy listed twice",
      text: VALID.replace("[direct, nginx]", "[direct, direct]"),
      error: /^s\.yml:10: proxies: 'direct' is listed twice/m,
    },
    {
      name: "a baseline that is not one of the proxies",
      text: VALID + "baseline: envoy\n",
      error: /^s\.yml:15: baseline: 'envoy' is not one of the study's proxies/m,
    },
    { name: "not YAML", text: "name: [", error: /^s\.yml:1: invalid YAML/m },
  ];
  for (const c of broken) {
    it(`rejects ${c.name}`, () => {
      expect(() => parseManifest(StudyManifest, c.text, "s.yml")).toThrow(c.error);
    });
  }
});

describe("the built-in studies", () => {
  it("are the four reproduced studies, each valid", async () => {
    const studies = await loadStudies();
    expect([...studies.keys()]).toEqual([
      "extensibility",
      "grpc-gateway",
      "llrp",
      "ocelot",
      "yarp-vs-httpclient",
    ]);
    expect(studies.get("grpc-gateway")?.manifest).toMatchObject({
      proxies: ["direct", "grpc-gateway", "nginx", "haproxy", "caddy"],
      scenarios: ["pingpong-grpc", "pingpong-rest"],
      engine: "k6",
      tls: true,
      layout: "go-bench",
    });
    expect(
      studies.get("grpc-gateway")?.manifest.paths?.map((p) => `${p.name.split("/")[0]} ${p.protocol ?? ""}`),
    ).toEqual([
      "BenchmarkGoGatewayGRPC ",
      "BenchmarkDirectGrpc ",
      "BenchmarkNginxTLSGrpc grpcs",
      "BenchmarkNginxGrpc ",
      "BenchmarkGoGatewayRest ",
      "BenchmarkDirectRest https",
      "BenchmarkDirectRestHTTP ",
      "BenchmarkNginxRestHTTPS https",
      "BenchmarkNginxRestHTTP ",
    ]);
    expect(studies.get("extensibility")?.manifest).toMatchObject({
      proxies: ["nginx", "haproxy", "envoy", "hive-gateway", "apollo-router"],
      scenarios: [
        "static-header",
        "guid-response",
        "client-awareness",
        "graphql-static-header",
        "graphql-guid-response",
        "graphql-client-awareness",
      ],
      engine: "vegeta",
      layout: "extensibility",
      durationS: 60,
    });
    expect(studies.get("yarp-vs-httpclient")?.manifest).toMatchObject({
      proxies: ["yarp", "aspnet-httpclient", "direct", "nginx", "haproxy"],
      engine: "k6",
      layout: "k6-summary",
      loads: ["100vus", "1000vus"],
    });
    expect(studies.get("llrp")?.manifest).toMatchObject({
      proxies: ["yarp", "aspnet-httpclient", "haproxy", "nginx", "envoy", "caddy"],
      engine: "wrk",
      layout: "crank-compare",
    });
    expect(studies.get("ocelot")?.manifest).toMatchObject({
      proxies: ["direct", "ocelot", "nginx"],
      engine: "ab",
      layout: "ab",
    });
  });

  it("their own scenarios carry the originals' loads", async () => {
    const studies = await loadStudies();
    const lookup = studies.get("yarp-vs-httpclient")?.ownScenarios.get("country-lookup")?.manifest;
    expect(lookup?.upstream.latencyMs).toBe(75);
    expect(lookup?.requests[0]?.vars.code).toHaveLength(5);
    expect(lookup?.loads.map((l) => [l.model, l.vus])).toEqual([
      ["constant-vus", 100],
      ["constant-vus", 1000],
    ]);
    const values = studies.get("ocelot")?.ownScenarios.get("ocelot-values")?.manifest;
    expect(values?.loads[0]).toMatchObject({ connections: 1000, requests: 20000, keepAlive: false });
    expect(values?.check.bodyEquals).toHaveLength(19);
  });

  it("name only proxies and scenarios that exist", async () => {
    const manifests = await loadManifests();
    for (const study of (await loadStudies()).values()) {
      expect(checkStudyReferences(study, manifests), study.manifest.name).toEqual([]);
    }
  });

  it("the caddy proxy manifest validates", async () => {
    const caddy = await loadProxyFile(path.join(PROJECT_ROOT, "proxies", "caddy", "proxy.yml"));
    expect(caddy.manifest.native?.binary).toBe("caddy");
    expect(caddy.manifest.tuning).toMatchObject({ workers: "cores", accessLog: false });
  });
});

/** Two proxies, "direct" and "nginx": these tests do not depend on the built-in manifests. */
function someProxies(): ManifestSet {
  const proxies = new Map<string, LoadedProxy>();
  for (const name of ["direct", "nginx"]) {
    const manifest = ProxyManifest.parse({ name, description: name, kind: "direct" });
    proxies.set(name, { manifest, dir: "/p", file: `/p/${name}/proxy.yml`, builtIn: false });
  }
  return { proxies, scenarios: new Map() };
}

describe("loading from folders", () => {
  async function studiesDir(files: Record<string, string>): Promise<string> {
    const root = await mkdtemp(path.join(tmpdir(), "proxybench-studies-"));
    for (const [rel, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
      await writeFile(path.join(root, rel), text);
    }
    return root;
  }

  it("an unknown study lists the known ones", async () => {
    const dir = await studiesDir({ "demo/study.yml": VALID });
    await expect(findStudy("nope", dir)).rejects.toThrow("--study nope: unknown study (known: demo)");
  });

  it("the study's name must be its folder's", async () => {
    const dir = await studiesDir({ "other/study.yml": VALID });
    await expect(loadStudyFile(path.join(dir, "other", "study.yml"))).rejects.toThrow(
      /study\.yml:1: name: 'demo' must equal its folder name 'other'/,
    );
  });

  it("unknown proxies, scenarios and load labels name file, line and field", async () => {
    const text = VALID.replace("[direct, nginx]", "[direct, nginxx]")
      .replace("[passthrough]", "[values, nope]")
      .replace("durationS: 5", "loads: [1000c, 5c]\ndurationS: 5");
    const dir = await studiesDir({
      "demo/study.yml": text,
      "demo/scenarios/values/scenario.yml": `name: values
description: own scenario
engine: ab
requests: [{ path: /api/values }]
loads: [{ label: 1000c, model: fixed-count, connections: 1000, requests: 20000 }]
`,
    });
    const study = await findStudy("demo", dir);
    expect(study.ownScenarios.has("values")).toBe(true);
    const problems = checkStudyReferences(study, someProxies());
    const file = path.join(dir, "demo", "study.yml");
    expect(problems[0]).toMatch(
      new RegExp(`^${file}:10: proxies\\[1\\]: unknown proxy 'nginxx' \\(known: .*nginx`),
    );
    expect(problems[1]).toMatch(
      new RegExp(`^${file}:11: scenarios\\[1\\]: unknown scenario 'nope' \\(known: .*values`),
    );
    expect(problems).toHaveLength(2); // load labels are checked once every scenario resolves

    const fixed = text.replace("[values, nope]", "[values]");
    await writeFile(file, fixed);
    const again = checkStudyReferences(await findStudy("demo", dir), someProxies());
    expect(again.at(-1)).toMatch(
      new RegExp(`^${file}:12: loads\\[1\\]: no scenario of the study has a load '5c'`),
    );
  });

  it("a broken study scenario names its own file", async () => {
    const dir = await studiesDir({
      "demo/study.yml": VALID,
      "demo/scenarios/values/scenario.yml": "name: values\ndescription: x\nrequests: []\nloads: []\n",
    });
    await expect(loadStudies(dir)).rejects.toThrow(/scenarios\/values\/scenario\.yml:3: requests: /);
  });

  it("the built-in folder is studies/ at the package root", () => {
    expect(BUILTIN_STUDIES_DIR).toBe(path.join(PROJECT_ROOT, "studies"));
  });
});
