import { describe, expect, it } from "vitest";
import type { EngineAdapter } from "../../../src/engines/types.js";
import { loadManifests } from "../../../src/manifests/load.js";
import { Engine } from "../../../src/results/schema.js";
import { runChecks } from "../../../src/doctor/checks.js";
import { engineCheck, studyChecks } from "../../../src/doctor/needs.js";
import type { NativeAvailability } from "../../../src/runner/proxy-binary.js";
import { formatStudyListings, studyListings } from "../../../src/measures/study/list.js";
import { findStudy, loadStudies } from "../../../src/measures/study/load.js";
import { PROJECT_ROOT } from "../../../src/util/paths.js";
import { runCommand } from "../../../src/util/processes.js";
import { routerBuilt } from "../../support/measures/study/apollo-router.js";

/** Engines where those in `missing` are not installed. */
const engines =
  (missing: Engine[]) =>
  (name: Engine): EngineAdapter => ({
    name,
    locate: () =>
      missing.includes(name)
        ? Promise.reject(new Error(`${name} not found`))
        : Promise.resolve({ path: `/usr/bin/${name}`, version: "1.0" }),
    run: () => Promise.reject(new Error("not here")),
  });

describe("doctor --study and --engine: what a named study or engine needs", () => {
  it("ocelot without ab: a failure whose fix is the one setup command for the study", async () => {
    const checks = await studyChecks(await findStudy("ocelot"), await loadManifests({}), engines(["ab"]));
    expect(checks[0]).toMatchObject({
      name: "ab",
      level: "fail",
      detail: "not found (needed by study ocelot)",
      fix: "npm run setup -- --study ocelot",
    });
    expect(checks.find((c) => c.name === "ocelot: ocelot")).toMatchObject({ level: "warn" });
  });

  it("extensibility: njs's module and each coprocessor, a missing one a warning (its rows are skipped)", async () => {
    const checks = await studyChecks(await findStudy("extensibility"), await loadManifests({}), engines([]));
    const byName = Object.fromEntries(checks.map((c) => [c.name, c]));
    expect(byName["extensibility: nginx script"]?.detail).toBe(
      "/usr/lib/nginx/modules/ngx_http_js_module.so",
    );
    expect(byName["extensibility: coprocessor node"]).toMatchObject({ level: "ok" });
    expect(byName["extensibility: coprocessor csharp"]).toMatchObject({
      level: "warn",
      detail: "image only: no native start here: its rows are skipped",
      fix: "npm run setup -- --study extensibility",
    });
    // Apollo Router is built only on demand (npm run setup -- --study extensibility): its one failure
    const failed = checks.filter((c) => c.level === "fail");
    expect(failed.map((c) => [c.name, c.fix])).toEqual(
      routerBuilt ? [] : [["extensibility: apollo-router", "npm run setup -- --study extensibility"]],
    );
  });

  it("an engine named on its own fails with its setup command; unnamed, it only warns", async () => {
    const named = await engineCheck("ab", engines(["ab"]), "--engine ab");
    expect(named).toMatchObject({ level: "fail", fix: "npm run setup -- --engine ab" });
    expect(await engineCheck("ab", engines(["ab"]), undefined)).toMatchObject({ level: "warn" });
    expect(await engineCheck("ab", engines([]), "--engine ab")).toMatchObject({ level: "ok" });
  });
});

describe("doctor: the machine's checks", () => {
  it("checks every engine proxybench knows: k6 missing fails (the default benchmark), any other only warns", async () => {
    const checks = await runChecks({
      manifests: await loadManifests({}),
      getEngine: engines([...Engine.options]),
    });
    const engineChecks = checks.filter((c) => (Engine.options as readonly string[]).includes(c.name));
    expect(engineChecks.map((c) => c.name)).toEqual([...Engine.options]);
    expect(engineChecks.map((c) => c.level)).toEqual(
      Engine.options.map((e) => (e === "k6" ? "fail" : "warn")),
    );
    expect(engineChecks.find((c) => c.name === "h2load")?.fix).toBe("npm run setup -- --engine h2load");
  });
});

describe("list: a study that cannot fully run here says how to install what it needs", () => {
  it("a missing engine and a missing binary give the setup command", async () => {
    const availability = new Map<string, NativeAvailability>([
      ["direct", { kind: "direct" }],
      ["nginx", { kind: "missing", binary: "nginx", fix: "apt-get install nginx-light" }],
      ["ocelot", { kind: "image-only" }],
    ]);
    const studies = await loadStudies();
    const [ocelot] = studyListings([studies.get("ocelot")!], availability, new Map([["ab", false]]));
    expect(ocelot).toMatchObject({ engineFound: false, setup: "npm run setup -- --study ocelot" });
    const text = formatStudyListings([ocelot!]);
    expect(text).toContain("its load generator ab is not installed");
    expect(text).toContain("install what it needs: npm run setup -- --study ocelot");
  });
});

describe("scripts/setup.sh --study and --engine", () => {
  it("install the study's engine and its native proxies' packages", async () => {
    const { code, output } = await runCommand("node", ["scripts/needs.js", "--study", "ocelot"], {
      cwd: PROJECT_ROOT,
      timeoutMs: 20_000,
    });
    expect(code).toBe(0);
    expect(output.trim().split("\n")).toEqual(["ab=apache2-utils", "nginx=nginx-light"]);
  });

  it("the grpc-gateway study needs nginx, HAProxy and Caddy from Debian; its gateway is built by setup itself", async () => {
    const { code, output } = await runCommand("node", ["scripts/needs.js", "--study", "grpc-gateway"], {
      cwd: PROJECT_ROOT,
      timeoutMs: 20_000,
    });
    expect(code).toBe(0);
    expect(output.trim().split("\n")).toEqual(["nginx=nginx-light", "haproxy=haproxy", "caddy=caddy"]);
  });

  it("the extensibility study: vegeta and the Go coprocessor built, njs's module, haproxy and python3 from Debian, Hive Gateway from its lock, Apollo Router with cargo (and protoc with its well-known types), the Java jar with Maven", async () => {
    const { code, output } = await runCommand("node", ["scripts/needs.js", "--study", "extensibility"], {
      cwd: PROJECT_ROOT,
    });
    expect(code).toBe(0);
    expect(output.trim().split("\n")).toEqual([
      "vegeta=go",
      "nginx=nginx-light",
      "/usr/lib/nginx/modules/ngx_http_js_module.so=libnginx-mod-http-js",
      "haproxy=haproxy",
      "hive-gateway=npm:hive-gateway",
      "apollo-router=cargo:apollo-router",
      "protoc=protobuf-compiler",
      "/usr/include/google/protobuf/timestamp.proto=libprotobuf-dev",
      "proxybench-coprocessor-go=go",
      "python3=python3",
      "proxybench-coprocessor-java=maven",
    ]);
  });

  it.each([
    [
      ["--study", "nope"],
      /--study nope: unknown study \(known: extensibility grpc-gateway llrp ocelot yarp-vs-httpclient/,
    ],
    [["--engine", "gatling"], /--engine gatling: unknown engine/],
    [["--study"], /--study needs a NAME/],
  ])("refuse %j before installing anything", async (args, message) => {
    const { code, output } = await runCommand("bash", ["scripts/setup.sh", ...args], {
      cwd: PROJECT_ROOT,
      timeoutMs: 20_000,
    });
    expect(code).toBe(2);
    expect(output).toMatch(message);
    expect(output).not.toContain("setup: installing");
  });
});
