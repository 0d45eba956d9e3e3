import { describe, expect, it } from "vitest";
import {
  loadManifests,
  type LoadedProxy,
  type LoadedScenario,
  type ManifestSet,
} from "../../../src/manifests/load.js";
import { ProxyManifest, ScenarioManifest } from "../../../src/manifests/schema.js";
import type { Cell, Settings } from "../../../src/results/schema.js";
import {
  buildPlan,
  checkResumeFlags,
  mergeVariantPlans,
  plannedSeconds,
  splitForResume,
} from "../../../src/runner/plan.js";
import { resumePath } from "../../../src/runner/settings.js";

const version = { args: ["-v"], pattern: "(.*)" };
const proxy = (name: string, m: object): LoadedProxy => ({
  dir: `/p/${name}`,
  file: `/p/${name}/proxy.yml`,
  builtIn: true,
  manifest: ProxyManifest.parse({ name, description: "d", ...m }),
});
const scenario = (name: string, labels: string[], extra: object = {}): LoadedScenario => ({
  dir: `/s/${name}`,
  file: `/s/${name}/scenario.yml`,
  builtIn: true,
  manifest: ScenarioManifest.parse({
    name,
    description: "d",
    requests: [{ path: "/a" }],
    loads: labels.map((label) => ({ label, model: "constant-vus", vus: 10, durationS: 20, warmupS: 5 })),
    ...extra,
  }),
});

const set: ManifestSet = {
  proxies: new Map([
    ["direct", proxy("direct", { kind: "direct" })],
    ["nginx", proxy("nginx", { native: { binary: "nginx", version } })],
    ["haproxy", proxy("haproxy", { native: { binary: "haproxy", version }, image: {} })],
    ["envoy", proxy("envoy", { image: {} })],
  ]),
  scenarios: new Map([
    ["passthrough", scenario("passthrough", ["default", "max"])],
    ["json-lookup", scenario("json-lookup", ["default", "100vus"], { engine: "wrk" })],
  ]),
};

const settings = (s: Partial<Settings> = {}): Settings => ({
  proxies: ["direct", "nginx", "haproxy"],
  scenarios: ["passthrough", "json-lookup"],
  repetitions: 3,
  cpus: { loadgen: [0], proxy: [1], upstream: [1] },
  runtime: "native",
  ...s,
});

describe("buildPlan: protocols", () => {
  const grpcSet: ManifestSet = {
    proxies: new Map([
      ["direct", proxy("direct", { kind: "direct", protocols: { http1: {}, grpc: {} } })],
      [
        "nginx",
        proxy("nginx", {
          native: { binary: "nginx", version },
          protocols: { http1: {}, https: {}, grpc: {}, grpcs: {} },
        }),
      ],
      ["haproxy", proxy("haproxy", { native: { binary: "haproxy", version } })],
    ]),
    scenarios: new Map([
      ["rest", scenario("rest", ["default"])],
      ["grpc", scenario("grpc", ["default"], { protocol: "grpc" })],
      ["h2c", scenario("h2c", ["default"], { protocol: "h2c" })],
    ]),
  };

  it("a proxy that does not declare the scenario's protocol is skipped on it, with the reason, and runs the others", () => {
    const plan = buildPlan(settings({ scenarios: ["grpc", "rest"] }), grpcSet);
    expect(plan.blocks.map((b) => b.cells.map((c) => c.id))).toEqual([
      ["grpc/default/direct/k6", "grpc/default/nginx/k6"],
      ["rest/default/direct/k6", "rest/default/nginx/k6", "rest/default/haproxy/k6"],
    ]);
    expect(plan.skipped).toEqual([
      {
        proxy: "haproxy",
        scenario: "grpc",
        reason: "does not front grpc (its proxy.yml declares protocols: http1)",
      },
    ]);
  });

  it("no block for a scenario none of the proxies fronts", () => {
    const plan = buildPlan(settings({ proxies: ["haproxy"], scenarios: ["grpc"] }), grpcSet);
    expect(plan.blocks).toEqual([]);
    expect(plan.skipped.map((s) => `${s.proxy} ${s.scenario}`)).toEqual(["haproxy grpc"]);
  });

  it("an engine that does not speak the scenario's protocol is an error naming the one that does", () => {
    expect(() => buildPlan(settings({ scenarios: ["grpc"], engine: "wrk" }), grpcSet)).toThrow(
      "scenario 'grpc' speaks grpc, which wrk does not (wrk: http1); use --engine k6",
    );
    expect(() => buildPlan(settings({ scenarios: ["h2c"] }), grpcSet)).toThrow(
      "scenario 'h2c' speaks h2c, which k6 does not (k6: http1, https, h2, grpc, grpcs); use --engine h2load",
    );
  });

  it("--tls: each scenario also over TLS, its own cells (id +protocol) on the proxies that declare it", () => {
    const plan = buildPlan(settings({ scenarios: ["rest", "grpc"], tls: true }), grpcSet);
    expect(plan.blocks.map((b) => [b.key, b.scenario.manifest.protocol, b.cells.map((c) => c.id)])).toEqual([
      [
        "rest-default",
        "http1",
        ["rest/default/direct/k6", "rest/default/nginx/k6", "rest/default/haproxy/k6"],
      ],
      ["rest-default-https", "https", ["rest/default/nginx+https/k6"]],
      ["grpc-default", "grpc", ["grpc/default/direct/k6", "grpc/default/nginx/k6"]],
      ["grpc-default-grpcs", "grpcs", ["grpc/default/nginx+grpcs/k6"]],
    ]);
    expect(plan.blocks[1]?.cells[0]?.tls).toBe("https");
    expect(plan.skipped.map((s) => `${s.proxy} ${s.scenario}: ${s.reason}`)).toEqual([
      "direct rest: does not front https (its proxy.yml declares protocols: http1, grpc)",
      "haproxy rest: does not front https (its proxy.yml declares protocols: http1)",
      "haproxy grpc: does not front grpc (its proxy.yml declares protocols: http1)",
      "direct grpc: does not front grpcs (its proxy.yml declares protocols: http1, grpc)",
      "haproxy grpc: does not front grpcs (its proxy.yml declares protocols: http1)",
    ]);
  });
});

describe("buildPlan", () => {
  it("one block per scenario and load, one cell per proxy, each scenario's engine", () => {
    const plan = buildPlan(settings(), set);
    expect(plan.blocks.map((b) => b.cells.map((c) => c.id))).toEqual([
      ["passthrough/default/direct/k6", "passthrough/default/nginx/k6", "passthrough/default/haproxy/k6"],
      ["json-lookup/default/direct/wrk", "json-lookup/default/nginx/wrk", "json-lookup/default/haproxy/wrk"],
    ]);
    expect(plan.blocks[0]?.load).toMatchObject({ durationS: 20, warmupS: 5 });
    expect(plan.skipped).toEqual([]);
  });

  it("flags override the engine and the durations", () => {
    const plan = buildPlan(
      settings({ engine: "k6", durationS: 2, warmupS: 0, scenarios: ["json-lookup"] }),
      set,
    );
    expect(plan.blocks[0]?.engine).toBe("k6");
    expect(plan.blocks[0]?.load).toMatchObject({ durationS: 2, warmupS: 0 });
    expect(plannedSeconds(plan.blocks[0]!, 3)).toBe(3 * 3 * 2);
  });

  it("without --load, the first level the engine can run (wrk has no open model)", () => {
    const mixed = new Map([
      [
        "open-first",
        {
          ...scenario("open-first", ["unused"]),
          manifest: ScenarioManifest.parse({
            name: "open-first",
            description: "d",
            requests: [{ path: "/a" }],
            loads: [
              { label: "rate", model: "constant-arrival-rate", rate: 1000, vus: 32 },
              { label: "closed", model: "constant-vus", vus: 32 },
              { label: "count", model: "fixed-count", requests: 100, vus: 10 },
            ],
          }),
        },
      ],
    ]);
    const withMixed = { ...set, scenarios: mixed };
    const pick = (engine: Settings["engine"]) =>
      buildPlan(settings({ scenarios: ["open-first"], engine }), withMixed).blocks.map((b) => b.key);
    expect(pick("k6")).toEqual(["open-first-rate"]);
    expect(pick("wrk")).toEqual(["open-first-closed"]);
    expect(pick("ab")).toEqual(["open-first-closed"]);
    expect(() =>
      buildPlan(settings({ scenarios: ["open-first"], engine: "wrk", loads: ["rate"] }), withMixed),
    ).toThrow(/--load rate: wrk cannot run a constant-arrival-rate load .*use --engine k6/);
  });

  it("--load picks the levels each scenario has", () => {
    const plan = buildPlan(settings({ loads: ["max", "100vus"] }), set);
    expect(plan.blocks.map((b) => b.key)).toEqual(["passthrough-max", "json-lookup-100vus"]);
  });

  it.each([
    [
      settings({ proxies: ["nginx", "traefik"] }),
      "--proxies: unknown 'traefik' (known: direct, envoy, haproxy, nginx)",
    ],
    [settings({ scenarios: ["nope"] }), "--scenarios: unknown 'nope' (known: json-lookup, passthrough)"],
    [settings({ loads: ["9000vus"] }), "--load: no selected scenario has a load '9000vus'"],
    [
      settings({ loads: ["max"] }),
      "--load: scenario 'json-lookup' has none of max (its loads: default (constant-vus), 100vus (constant-vus))",
    ],
  ])("bad selection %#", (s, error) => {
    expect(() => buildPlan(s, set)).toThrow(error);
  });

  it("image-only proxies are skipped in a native run, native-only ones in a docker run", () => {
    const native = buildPlan(settings({ proxies: ["nginx", "envoy"] }), set);
    expect(native.skipped).toEqual([{ proxy: "envoy", reason: "image only: run it with --runtime docker" }]);
    expect(native.blocks[0]?.cells.map((c) => c.proxy.manifest.name)).toEqual(["nginx"]);
    const docker = buildPlan(
      settings({ runtime: "docker", proxies: ["direct", "nginx", "haproxy", "envoy"] }),
      set,
    );
    expect(docker.skipped.map((s) => s.proxy)).toEqual(["nginx"]);
    expect(docker.blocks[0]?.cells.map((c) => c.proxy.manifest.name)).toEqual(["direct", "haproxy", "envoy"]);
  });
});

describe("mergeVariantPlans", () => {
  it("puts every variant's cells side by side in one block, ids suffixed with the variant", () => {
    const plan = buildPlan(settings({ scenarios: ["passthrough"] }), set);
    const merged = mergeVariantPlans([
      { variant: "base", plan },
      { variant: "head", plan },
    ]);
    expect(merged.blocks).toHaveLength(plan.blocks.length);
    const ids = merged.blocks[0]!.cells.map((c) => c.id);
    expect(ids.filter((id) => id.endsWith("@base"))).toHaveLength(plan.blocks[0]!.cells.length);
    expect(ids.filter((id) => id.endsWith("@head"))).toHaveLength(plan.blocks[0]!.cells.length);
    expect(new Set(ids).size).toBe(ids.length);
    expect(merged.blocks[0]!.cells.every((c) => c.variant === "base" || c.variant === "head")).toBe(true);
  });

  it("refuses variants whose blocks differ, naming the variant", () => {
    const one = buildPlan(settings({ scenarios: ["passthrough"] }), set);
    const both = buildPlan(settings({}), set);
    expect(() =>
      mergeVariantPlans([
        { variant: "base", plan: both },
        { variant: "head", plan: one },
      ]),
    ).toThrow(/--variant head: no '.*' block/);
  });
});

describe("resume", () => {
  const cell = (id: string, finished: boolean): Cell =>
    ({ id, ...(finished ? { finishedAt: "2026-01-01T00:00:00.000Z" } : {}) }) as Cell;

  it("keeps finished cells of the plan and runs the others", () => {
    const plan = buildPlan(settings({ scenarios: ["passthrough"] }), set);
    const { keep, todo } = splitForResume(
      [
        cell("passthrough/default/direct/k6", true),
        cell("passthrough/default/nginx/k6", false),
        cell("other/default/x/k6", true),
      ],
      plan,
    );
    expect(keep.map((c) => c.id)).toEqual(["passthrough/default/direct/k6"]);
    expect([...todo]).toEqual(["passthrough/default/nginx/k6", "passthrough/default/haproxy/k6"]);
  });

  it.each([
    [{}, undefined],
    [{ repetitions: 3, proxies: ["direct", "nginx", "haproxy"] }, undefined],
    [{ repetitions: 5 }, "--resume: --repetitions 5 differs from the recorded 3"],
    [{ durationS: 2 }, "--duration 2 differs from the recorded (none)"],
    [
      { cpus: { loadgen: [1], proxy: [0], upstream: [0] } },
      "--cpus loadgen=1,proxy=0,upstream=0 differs from the recorded loadgen=0,proxy=1,upstream=1",
    ],
    [{ proxies: ["nginx"] }, "--proxies nginx differs from the recorded direct,nginx,haproxy"],
  ])("flags %j", (flags, error) => {
    const run = () => checkResumeFlags(settings(), flags);
    if (error) expect(run).toThrow(error);
    else expect(run).not.toThrow();
  });
});

describe("the plan of the built-in scenarios (issue 16)", () => {
  it("README's throughput command plans both default scenarios at their max load", async () => {
    const builtins = await loadManifests({});
    const plan = buildPlan(settings({ engine: "wrk", loads: ["max"] }), builtins);
    expect(plan.blocks.map((b) => `${b.key}/${b.engine}`)).toEqual([
      "passthrough-max/wrk",
      "json-lookup-max/wrk",
    ]);
  });

  it("--engine wrk without --load says which load it runs instead of the first", async () => {
    const builtins = await loadManifests({});
    const plan = buildPlan(settings({ engine: "wrk" }), builtins);
    expect(plan.blocks.map((b) => b.key)).toEqual(["passthrough-vus-32", "json-lookup-vus-32"]);
    expect(plan.notes).toHaveLength(2);
    expect(plan.notes[0]).toMatch(
      /scenario 'passthrough': wrk cannot run its first load 'default' \(constant-arrival-rate\); running 'vus-32'/,
    );
    expect(buildPlan(settings(), builtins).notes).toEqual([]);
  });
});

describe("names a user reads (issue 16)", () => {
  it("the resume hint is relative inside the working folder, absolute outside it", () => {
    expect(resumePath("/work/p/results/1", "/work/p")).toBe("results/1");
    expect(resumePath("/tmp/pb/run", "/work/p")).toBe("/tmp/pb/run");
    expect(resumePath("/work/p", "/work/p")).toBe(".");
  });
});
