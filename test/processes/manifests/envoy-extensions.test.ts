import { createHmac } from "node:crypto";
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadManifests, loadProxyFile, type LoadedProxy } from "../../../src/manifests/load.js";
import { nativeAvailability } from "../../../src/runner/proxy-binary.js";
import { renderConfigs, type ProxyContext } from "../../../src/runner/specs.js";
import {
  derivedManifest,
  isGatewayTest,
  planOptions,
  variantScenario,
  type CoprocessorChoice,
  type ExtensionOption,
} from "../../../src/measures/study/extensibility/options.js";
import { findStudy, type LoadedStudy } from "../../../src/measures/study/load.js";
import { splitStudyProxies } from "../../../src/measures/study/run.js";
import { PROJECT_ROOT, TOOLS_BIN, findExecutable } from "../../../src/util/paths.js";
import { runCommand } from "../../../src/util/processes.js";

// Envoy runs only as an image, on GitHub's runners: no Envoy binary here. Its extensibility
// configs are proven here instead, rendered as the study renders them: every envoy.yaml against
// Envoy's v3 API (proxies/envoy/validate, go-control-plane at the image's version, built into
// .tools/bin by `npm run setup -- --for-tests`), their Lua run under LuaJIT (Envoy's Lua) with a
// stand-in stream handle (test/support/manifests/envoy-lua-harness.lua), and their settings read back.

const ENVOY = path.join(PROJECT_ROOT, "proxies", "envoy", "proxy.yml");
const VALIDATOR = path.join(TOOLS_BIN, "proxybench-envoy-validate");
const HARNESS = path.join(PROJECT_ROOT, "test", "support", "manifests", "envoy-lua-harness.lua");
const TESTS = ["static-header", "guid-response", "client-awareness"];
const SIDECAR_PORT = 18081;
const STUDY_KEY = "proxybench-extensibility-key";
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const SETUP = "npm run setup -- --for-tests";
const GO: CoprocessorChoice = { name: "go", dir: "/c/go", binary: "/bin/go-cp", args: [], env: {} };

/** One rendered variant: the study's option (or the baseline) for one test, in its own folder. */
interface Variant {
  test: string;
  option: string;
  dir: string;
  files: Map<string, string>;
  envoyYaml: string;
}

function context(workdir: string): ProxyContext {
  return {
    listenHost: "127.0.0.1",
    listenPort: 18080,
    upstreamHost: "127.0.0.1",
    upstreamPort: 18090,
    upstreamGrpcPort: 18091,
    cpus: [1],
    workdir,
    logFile: path.join(workdir, "envoy.log"),
    sidecarPort: SIDECAR_PORT,
  };
}

/**
 * An option's files as the study writes them: derivedManifest puts the option's configs after
 * the gateway's, renderConfigs renders them, and they are written in that order (a later config
 * of the same output wins, as in start-cell). Envoy has no native section for derivedManifest to
 * read: its image section stands in for it.
 */
async function renderVariant(envoy: LoadedProxy, option: ExtensionOption | undefined, dir: string) {
  const image = envoy.manifest.image;
  if (!image) throw new Error(`${envoy.file}: no image section`);
  const native = { binary: "envoy", args: image.args, env: image.env, configs: image.configs };
  const asNative = { ...envoy.manifest, native: { ...native, version: { args: [], pattern: "(.+)" } } };
  const manifest = derivedManifest(asNative, option, { memoryLimitBytes: 2 ** 30, sidecarCpus: [0] });
  const templates: Record<string, string> = {};
  for (const c of manifest.native?.configs ?? []) {
    templates[c.template] = await readFile(path.join(envoy.dir, c.template), "utf8");
  }
  await mkdir(dir, { recursive: true });
  const files = new Map<string, string>();
  for (const c of renderConfigs({ ...envoy, manifest }, "native", context(dir), templates)) {
    await writeFile(c.output, c.content);
    files.set(path.basename(c.output), c.content);
  }
  return files;
}

async function renderAll(envoy: LoadedProxy, root: string): Promise<Variant[]> {
  const variants: Variant[] = [];
  const add = async (test: string, option: ExtensionOption | undefined) => {
    const name = option?.name ?? "baseline";
    const dir = path.join(root, `${test}-${name}`);
    const files = await renderVariant(envoy, option, dir);
    variants.push({ test, option: name, dir, files, envoyYaml: path.join(dir, "envoy.yaml") });
  };
  await add("none", undefined);
  for (const test of TESTS) {
    for (const option of planOptions(envoy, test, [GO], () => true).options) await add(test, option);
  }
  return variants;
}

async function tool(file: string, name: string): Promise<string> {
  const found = await findExecutable(file);
  if (!found) throw new Error(`${name} not found (${file}): run \`${SETUP}\``);
  return found;
}

let envoy: LoadedProxy;
let root: string;
let variants: Variant[];

beforeAll(async () => {
  envoy = await loadProxyFile(ENVOY, true);
  root = await mkdtemp(path.join(os.tmpdir(), "proxybench-envoy-"));
  variants = await renderAll(envoy, root);
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

function variant(test: string, option: string): Variant {
  const found = variants.find((v) => v.test === test && v.option === option);
  if (!found) throw new Error(`no rendered variant ${test} ${option}`);
  return found;
}

/** A field of parsed YAML by its path (keys and indexes), or undefined. */
function at(value: unknown, ...keys: Array<string | number>): unknown {
  let here = value;
  for (const key of keys) {
    if (here === null || typeof here !== "object") return undefined;
    here = (here as Record<string | number, unknown>)[key];
  }
  return here;
}

function bootstrap(v: Variant): unknown {
  const text = v.files.get("envoy.yaml");
  if (text === undefined) throw new Error(`${v.dir}: no envoy.yaml rendered`);
  return parse(text) as unknown;
}

const HCM: Array<string | number> = [
  "static_resources",
  "listeners",
  0,
  "filter_chains",
  0,
  "filters",
  0,
  "typed_config",
];

function httpFilters(v: Variant): Array<{ name: string; typed_config: unknown }> {
  return at(bootstrap(v), ...HCM, "http_filters") as Array<{ name: string; typed_config: unknown }>;
}

describe("envoy in the extensibility study", () => {
  it("has the study's HTTP tests, and is skipped in a native run as image only", async () => {
    const study = await findStudy("extensibility");
    const manifests = await loadManifests();
    const availability = new Map([["envoy", await nativeAvailability(envoy)]]);
    expect(splitStudyProxies(["envoy"], availability, manifests.proxies).skipped).toEqual([
      { proxy: "envoy", reason: expect.stringMatching(/^image only/) as unknown },
    ]);
    for (const test of study.manifest.scenarios) {
      expect(isGatewayTest(envoy.manifest, test), test).toBe(!test.startsWith("graphql-"));
    }
  });

  it("has config, script and each coprocessor for every HTTP test, none blank", () => {
    for (const test of TESTS) {
      const plan = planOptions(envoy, test, [GO], () => true);
      expect(plan.options.map((o) => o.name)).toEqual(["config", "script", "go"]);
      expect(plan.skipped).toEqual([]);
    }
  });
});

describe("every rendered envoy.yaml against Envoy's v3 API (go-control-plane)", () => {
  it("accepts the baseline and each option of each test", async () => {
    const validator = await tool(VALIDATOR, "the Envoy config validator");
    const files = variants.map((v) => v.envoyYaml);
    expect(files).toHaveLength(1 + TESTS.length * 3);
    const { code, output } = await runCommand(validator, files, { timeoutMs: 60_000 });
    expect(code, output).toBe(0);
    for (const file of files) expect(output).toContain(`${file}: ok`);
  });

  it.each([
    [
      "an unknown field",
      "stat_prefix: bench",
      "stat_prefix: bench\n                no_such_field: 1",
      /unknown field "no_such_field"/,
    ],
    [
      "a rule broken inside a typed_config (an Any)",
      "stat_prefix: bench",
      'stat_prefix: ""',
      /typed_config\(HttpConnectionManager\): .*StatPrefix.*at least 1/,
    ],
    [
      "a deprecated field",
      "default_source_code:",
      "inline_code: x\n                      default_source_code:",
      /inline_code: deprecated field/,
    ],
  ])("refuses %s, naming the file", async (_what, from, to, problem) => {
    const validator = await tool(VALIDATOR, "the Envoy config validator");
    const source = variant("static-header", "script").files.get("envoy.yaml") ?? "";
    expect(source).toContain(from);
    const broken = path.join(root, "broken.envoy.yaml");
    await writeFile(broken, source.replace(from, to));
    const { code, output } = await runCommand(validator, [broken], { timeoutMs: 60_000 });
    expect(code, output).toBe(1);
    expect(output).toContain(`${broken}: `);
    expect(output).toMatch(problem);
  });

  it("keeps the baseline's listener, connection manager settings, router and upstream cluster", () => {
    const base = bootstrap(variant("none", "baseline"));
    for (const v of variants) {
      const b = bootstrap(v);
      const label = `${v.test} ${v.option}`;
      expect(at(b, "static_resources", "listeners", 0, "address"), label).toEqual(
        at(base, "static_resources", "listeners", 0, "address"),
      );
      for (const field of ["stat_prefix", "codec_type", "generate_request_id"]) {
        expect(at(b, ...HCM, field), `${label} ${field}`).toEqual(at(base, ...HCM, field));
      }
      expect(httpFilters(v).at(-1), label).toEqual(httpFilters(variant("none", "baseline")).at(-1));
      expect(at(b, "static_resources", "clusters", 0), label).toEqual(
        at(base, "static_resources", "clusters", 0),
      );
    }
  });
});

describe("the config option's settings", () => {
  it("static header: source: config on every upstream request", () => {
    expect(
      at(bootstrap(variant("static-header", "config")), ...HCM, "route_config", "request_headers_to_add"),
    ).toEqual([{ header: { key: "source", value: "config" }, append_action: "OVERWRITE_IF_EXISTS_OR_ADD" }]);
  });

  it("GUIDs: x-guid-1 ... x-guid-10, each its own %UNIQUE_ID%", () => {
    const added = at(
      bootstrap(variant("guid-response", "config")),
      ...HCM,
      "route_config",
      "response_headers_to_add",
    );
    expect(added).toEqual(
      Array.from({ length: 10 }, (_, i) => ({
        header: { key: `x-guid-${i + 1}`, value: "%UNIQUE_ID%" },
        append_action: "OVERWRITE_IF_EXISTS_OR_ADD",
      })),
    );
  });

  it("client awareness: jwt_authn's key verifies the study's token, not the bad one", async () => {
    const study = await findStudy("extensibility");
    const { good, bad } = studyTokens(study);
    const jwt = httpFilters(variant("client-awareness", "config"))[0];
    expect(jwt?.name).toBe("envoy.filters.http.jwt_authn");
    const provider = at(jwt?.typed_config, "providers", "study");
    const key = jwksKey(at(provider, "local_jwks", "inline_string"));
    expect(key.toString()).toBe(STUDY_KEY);
    expect(hs256Valid(good, key)).toBe(true);
    expect(hs256Valid(bad, key)).toBe(false);
    expect(at(provider, "claim_to_headers")).toEqual([
      { header_name: "apollographql-client-name", claim_name: "client_name" },
      { header_name: "apollographql-client-version", claim_name: "client_version" },
    ]);
    expect(at(jwt?.typed_config, "rules")).toEqual([
      { match: { path: "/health" } },
      { match: { prefix: "/" }, requires: { provider_name: "study" } },
    ]);
  });
});

/** The study's good token (its scenario's request) and bad one (its effect check's reject). */
function studyTokens(study: LoadedStudy): { good: string; bad: string } {
  const scenario = study.ownScenarios.get("client-awareness")?.manifest;
  if (!scenario) throw new Error(`${study.file}: no client-awareness scenario`);
  const effect = study.manifest.extensibility?.effects["client-awareness"];
  const checked = variantScenario(scenario, effect, "config", study.file);
  const bearer = (value: string | undefined) => (value ?? "").replace(/^Bearer /, "");
  return {
    good: bearer(scenario.requests[0]?.headers.authorization),
    bad: bearer(checked.check.rejects?.[0]?.headers.authorization),
  };
}

function jwksKey(jwks: unknown): Buffer {
  const key = at(JSON.parse(String(jwks)), "keys", 0) as { kty?: string; alg?: string; k?: string };
  expect(key).toMatchObject({ kty: "oct", alg: "HS256" });
  return Buffer.from(key.k ?? "", "base64url");
}

function hs256Valid(token: string, key: Buffer): boolean {
  const [header, payload, signature] = token.split(".");
  const mac = createHmac("sha256", key).update(`${header}.${payload}`).digest("base64url");
  return signature !== undefined && mac === signature;
}

/** A Lua literal of a test value (strings, numbers, booleans, tables): the harness's case file. */
function lua(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value === null || value === undefined) return "nil";
  const entries = Object.entries(value as Record<string, unknown>);
  return `{ ${entries.map(([k, v]) => `[${JSON.stringify(k)}] = ${lua(v)}`).join(", ")} }`;
}

interface LuaCase {
  headers?: Record<string, string>;
  metadata?: Record<string, unknown>;
  reply?: Record<string, string>;
}

/** Runs the Lua filter of a variant's envoy.yaml in one phase; what it did, one array per line. */
async function runLua(v: Variant, phase: "request" | "response", luaCase: LuaCase): Promise<string[][]> {
  const luajit = await tool("luajit", "LuaJIT (Debian's luajit)");
  const filter = httpFilters(v).find((f) => f.name === "envoy.filters.http.lua");
  const code = at(filter?.typed_config, "default_source_code", "inline_string");
  if (typeof code !== "string") throw new Error(`${v.envoyYaml}: no Lua filter with inline code`);
  const codeFile = path.join(v.dir, "filter.lua");
  const caseFile = path.join(v.dir, "case.lua");
  await writeFile(codeFile, code);
  await writeFile(caseFile, `return ${lua(luaCase)}\n`);
  const { code: exit, output } = await runCommand(luajit, [HARNESS, codeFile, phase, caseFile], {
    timeoutMs: 20_000,
  });
  expect(exit, output).toBe(0);
  return output
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => l.split("\t"));
}

function setHeaders(lines: string[][]): Record<string, string> {
  const set: Record<string, string> = {};
  for (const [what, name, value] of lines) if (what === "set" && name !== undefined) set[name] = value ?? "";
  return set;
}

function tokenHeaders(token: string, extra: Record<string, string> = {}): Record<string, string> {
  return { ":path": "/echo/headers", authorization: `Bearer ${token}`, ...extra };
}

describe("the script option (the Lua filter, under LuaJIT)", () => {
  it("every Lua file of the folder compiles with LuaJIT", async () => {
    const luajit = await tool("luajit", "LuaJIT (Debian's luajit)");
    const dir = path.join(envoy.dir, "extensibility");
    const files = (await readdir(dir)).filter((f) => f.endsWith(".lua"));
    expect(files.sort()).toEqual(["coprocessor.lua", "extension.lua"]);
    for (const file of files) {
      const { code, output } = await runCommand(luajit, ["-bl", path.join(dir, file)], { timeoutMs: 20_000 });
      expect(code, `${file}: ${output}`).toBe(0);
    }
  });

  it("static header: source: script", async () => {
    const lines = await runLua(variant("static-header", "script"), "request", { headers: { ":path": "/" } });
    expect(lines).toEqual([["set", "source", "script"]]);
  });

  it("GUIDs: 10 distinct version-4 GUIDs on the response", async () => {
    const set = setHeaders(await runLua(variant("guid-response", "script"), "response", {}));
    expect(Object.keys(set)).toEqual(Array.from({ length: 10 }, (_, i) => `x-guid-${i + 1}`));
    for (const value of Object.values(set)) expect(value).toMatch(GUID);
    expect(new Set(Object.values(set)).size).toBe(10);
  });

  it("client awareness: the claims jwt_authn verified go upstream; none is a 401 except on /health", async () => {
    const v = variant("client-awareness", "script");
    const payload = { client_name: "proxybench-web", client_version: "1.4.2" };
    const verified = { "envoy.filters.http.jwt_authn": { jwt_payload: payload } };
    expect(
      setHeaders(await runLua(v, "request", { headers: tokenHeaders("x"), metadata: verified })),
    ).toEqual({
      "apollographql-client-name": "proxybench-web",
      "apollographql-client-version": "1.4.2",
    });
    expect(await runLua(v, "request", { headers: tokenHeaders("x") })).toEqual([["respond", "401"]]);
    expect(await runLua(v, "request", { headers: { ":path": "/health" } })).toEqual([]);
  });
});

/** The coprocessor call's line: cluster, path, timeout, mirror flag and the parsed JSON body. */
function coprocessorCall(lines: string[][]): { target: string[]; body: Record<string, unknown> } {
  const call = lines.find((l) => l[0] === "call");
  if (!call) throw new Error(`no httpCall in ${JSON.stringify(lines)}`);
  return { target: call.slice(1, 5), body: JSON.parse(call[5] ?? "") as Record<string, unknown> };
}

describe("the coprocessor option (the Lua filter's httpCall)", () => {
  it("calls the sidecar's port through the coprocessor cluster", () => {
    const endpoint = ["load_assignment", "endpoints", 0, "lb_endpoints", 0, "endpoint", "address"];
    for (const test of TESTS) {
      const clusters = at(bootstrap(variant(test, "go")), "static_resources", "clusters") as unknown[];
      const address = at(clusters[1], ...endpoint);
      expect(at(clusters[1], "name"), test).toBe("coprocessor");
      expect(address, test).toEqual({
        socket_address: { address: "127.0.0.1", port_value: String(SIDECAR_PORT) },
      });
    }
  });

  it("static header: POSTs SubgraphRequest to /static-subgraph, mirrored; its source goes upstream", async () => {
    const v = variant("static-header", "go");
    const reply = { ":status": "200", "x-coprocessor-header-source": "go" };
    const lines = await runLua(v, "request", { headers: { ":path": "/echo/headers" }, reply });
    const { target, body } = coprocessorCall(lines);
    expect(target).toEqual(["coprocessor", "/static-subgraph", "2000", "1"]);
    expect(body).toMatchObject({ version: 1, stage: "SubgraphRequest", control: "continue" });
    expect(body.headers).toEqual({ authorization: [""] });
    expect(setHeaders(lines)).toEqual({ source: "go" });
    const failed = await runLua(v, "request", { headers: { ":path": "/" }, reply: { ":status": "503" } });
    expect(failed.at(-1)).toEqual(["respond", "502"]);
  });

  it("GUIDs: the coprocessor's 10 on the response (RouterResponse); a failed call is a 502", async () => {
    const v = variant("guid-response", "go");
    const guids = Array.from({ length: 10 }, (_, i) => `0000000${i}-0000-4000-8000-000000000000`);
    const reply: Record<string, string> = { ":status": "200" };
    guids.forEach((g, i) => (reply[`x-coprocessor-header-x-guid-${i + 1}`] = g));
    const lines = await runLua(v, "response", { reply });
    expect(coprocessorCall(lines).body).toMatchObject({ stage: "RouterResponse" });
    expect(Object.values(setHeaders(lines))).toEqual(guids);
    expect(setHeaders(await runLua(v, "response", { reply: { ":status": "500" } }))).toEqual({
      ":status": "502",
    });
  });
});

describe("the coprocessor option's client awareness", () => {
  it("client awareness: the token goes to /client-awareness; its 401 is the client's; /health is not sent", async () => {
    const v = variant("client-awareness", "go");
    const reply = {
      ":status": "200",
      "x-coprocessor-header-apollographql-client-name": "proxybench-web",
      "x-coprocessor-header-apollographql-client-version": "1.4.2",
    };
    const lines = await runLua(v, "request", { headers: tokenHeaders("a.b.c"), reply });
    const { target, body } = coprocessorCall(lines);
    expect(target.slice(0, 2)).toEqual(["coprocessor", "/client-awareness"]);
    expect(body).toMatchObject({ stage: "RouterRequest", headers: { authorization: ["Bearer a.b.c"] } });
    expect(setHeaders(lines)).toEqual({
      "apollographql-client-name": "proxybench-web",
      "apollographql-client-version": "1.4.2",
    });
    const refused = await runLua(v, "request", { headers: tokenHeaders("bad"), reply: { ":status": "401" } });
    expect(refused.at(-1)).toEqual(["respond", "401"]);
    expect(await runLua(v, "request", { headers: { ":path": "/health" } })).toEqual([]);
  });

  it("escapes what a client sends before it goes into the JSON body", async () => {
    const v = variant("client-awareness", "go");
    const sent = 'Bearer "quoted" \\ and\tcontrol';
    const lines = await runLua(v, "request", {
      headers: { ":path": "/", authorization: sent },
      reply: { ":status": "401" },
    });
    expect(coprocessorCall(lines).body).toMatchObject({ headers: { authorization: [sent] } });
  });
});
