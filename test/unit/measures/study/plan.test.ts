import path from "node:path";
import { describe, expect, it } from "vitest";
import type { LoadedProxy, ManifestSet } from "../../../../src/manifests/load.js";
import { ProxyManifest } from "../../../../src/manifests/schema.js";
import type { NativeAvailability } from "../../../../src/runner/proxy-binary.js";
import { loadStudies, studyLoads } from "../../../../src/measures/study/load.js";
import {
  loadConcurrency,
  selectStudyProxies,
  splitStudyProxies,
  studyRunRequest,
} from "../../../../src/measures/study/run.js";

function proxy(name: string, sections: { native?: boolean; image?: boolean; direct?: boolean }): LoadedProxy {
  const manifest = ProxyManifest.parse({
    name,
    description: name,
    ...(sections.direct ? { kind: "direct" } : {}),
    ...(sections.native ? { native: { binary: name, version: { args: ["-v"], pattern: "(.*)" } } } : {}),
    ...(sections.image ? { image: {} } : {}),
  });
  return { manifest, dir: `/p/${name}`, file: `/p/${name}/proxy.yml`, builtIn: true };
}

const MANIFESTS = new Map<string, LoadedProxy>([
  ["direct", proxy("direct", { direct: true })],
  ["nginx", proxy("nginx", { native: true, image: true })],
  ["caddy", proxy("caddy", { native: true })],
  ["yarp", proxy("yarp", { image: true })],
]);

describe("splitStudyProxies", () => {
  const availability = new Map<string, NativeAvailability>([
    ["direct", { kind: "direct" }],
    ["nginx", { kind: "found", path: "/usr/sbin/nginx", version: "1.22.1" }],
    ["caddy", { kind: "missing", binary: "caddy", fix: "apt-get install caddy" }],
    ["yarp", { kind: "image-only" }],
  ]);
  const cases: Array<{
    name: string;
    runtime: "native" | "docker";
    runnable: string[];
    skipped: Array<[string, RegExp]>;
  }> = [
    {
      name: "native: direct and found binaries run; image-only and missing binaries are skipped with why",
      runtime: "native",
      runnable: ["direct", "nginx"],
      skipped: [
        ["caddy", /'caddy' not found \(fix: apt-get install caddy\)/],
        ["yarp", /image only/],
        ["envoy", /no manifest/],
      ],
    },
    {
      name: "docker: proxies with an image run; native-only ones are skipped",
      runtime: "docker",
      runnable: ["direct", "nginx", "yarp"],
      skipped: [
        ["caddy", /no image/],
        ["envoy", /no manifest/],
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const split = splitStudyProxies(
        ["direct", "nginx", "caddy", "yarp", "envoy"],
        availability,
        MANIFESTS,
        c.runtime,
      );
      expect(split.runnable).toEqual(c.runnable);
      expect(split.skipped.map((s) => s.proxy)).toEqual(c.skipped.map(([p]) => p));
      c.skipped.forEach(([, reason], i) => expect(split.skipped[i]?.reason).toMatch(reason));
    });
  }
});

describe("studyRunRequest", () => {
  const none: ManifestSet = { proxies: new Map(), scenarios: new Map() };

  it("the study's settings, its own scenarios folder, every load label, the runnable proxies only", async () => {
    const study = (await loadStudies()).get("yarp-vs-httpclient")!;
    const request = studyRunRequest(study, none, { runnable: ["direct", "nginx"], skipped: [] });
    expect(request).toEqual({
      proxies: ["direct", "nginx"],
      scenarios: ["country-lookup"],
      engine: "k6",
      repetitions: 3,
      durationS: 30,
      warmupS: 5,
      loads: ["100vus", "1000vus"],
      scenariosDirs: [path.join(study.dir, "scenarios")],
    });
  });

  it("flags override the study's settings", async () => {
    const study = (await loadStudies()).get("ocelot")!;
    const request = studyRunRequest(
      study,
      none,
      { runnable: ["direct"], skipped: [] },
      {
        repetitions: 1,
        durationS: 2,
        warmupS: 0,
        out: "/tmp/x",
        cpus: "loadgen=0,proxy=1,upstream=1",
        noiseLimit: 2,
        retries: 0,
      },
    );
    expect(request).toMatchObject({
      proxies: ["direct"],
      engine: "ab",
      repetitions: 1,
      durationS: 2,
      warmupS: 0,
      loads: ["1000c"],
      out: "/tmp/x",
      cpus: "loadgen=0,proxy=1,upstream=1",
      noiseLimit: 2,
      retries: 0,
    });
  });

  it("a --load filter keeps only those loads", async () => {
    const study = (await loadStudies()).get("yarp-vs-httpclient")!;
    expect(studyLoads(study, none, ["1000vus"]).map((l) => l.vus)).toEqual([1000]);
  });
});

describe("loadConcurrency", () => {
  const cases: Array<{
    name: string;
    loads: Parameters<typeof loadConcurrency>[0];
    engine: string;
    expected: object;
  }> = [
    {
      name: "VUs",
      loads: [
        { label: "a", model: "constant-vus", vus: 100 },
        { label: "b", model: "constant-vus", vus: 1000 },
      ],
      engine: "k6",
      expected: { connections: 1000, keepAlive: true },
    },
    {
      name: "ab without keep-alive",
      loads: [{ label: "c", model: "fixed-count", connections: 1000, requests: 20000 }],
      engine: "ab",
      expected: { connections: 1000, keepAlive: false },
    },
    {
      name: "ab told to keep connections alive",
      loads: [{ label: "c", model: "fixed-count", connections: 50, requests: 2000, keepAlive: true }],
      engine: "ab",
      expected: { connections: 50, keepAlive: true },
    },
    { name: "no loads", loads: [], engine: "wrk", expected: { connections: 0, keepAlive: true } },
  ];
  for (const c of cases) it(c.name, () => expect(loadConcurrency(c.loads, c.engine)).toEqual(c.expected));
});

describe("selectStudyProxies", () => {
  it("every proxy of the study by default, a subset in the study's order, an outsider refused", async () => {
    const study = (await loadStudies()).get("llrp")!;
    expect(selectStudyProxies(study)).toEqual([
      "yarp",
      "aspnet-httpclient",
      "haproxy",
      "nginx",
      "envoy",
      "caddy",
    ]);
    expect(selectStudyProxies(study, ["caddy", "nginx"])).toEqual(["nginx", "caddy"]);
    expect(() => selectStudyProxies(study, ["nginx", "traefik"])).toThrow(
      "--proxies: 'traefik' is not in study llrp (its proxies: yarp, aspnet-httpclient, haproxy, nginx, envoy, caddy)",
    );
  });
});
