import { mkdtemp, mkdir, writeFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadManifests, parseManifest } from "../../../src/manifests/load.js";
import { ProxyManifest, ScenarioManifest } from "../../../src/manifests/schema.js";
import { StudyManifest } from "../../../src/measures/study/schema.js";
import { z } from "zod";

const F = "/m/proxies/x/proxy.yml";

describe("parseManifest errors name file:line: field", () => {
  it.each([
    {
      what: "missing description",
      schema: ProxyManifest,
      text: "name: x\nkind: direct\n",
      error: `${F}:1: description: Invalid input: expected string, received undefined`,
    },
    {
      what: "bad name",
      schema: ProxyManifest,
      text: "description: d\nkind: direct\nname: Bad_Name\n",
      error: `${F}:3: name: lower-case letters`,
    },
    {
      what: "unknown key points at the key's line",
      schema: ProxyManifest,
      text: "name: x\ndescription: d\nkind: direct\ntunning:\n  a: 1\n",
      error: `${F}:4: tunning: Unrecognized key: "tunning"`,
    },
    {
      what: "an unknown tuning key, with the known ones",
      schema: ProxyManifest,
      text: "name: x\ndescription: d\nkind: direct\ntuning:\n  workers: cores\n  wrokers: 2\n",
      error:
        `${F}:6: tuning.wrokers: unknown tuning key 'wrokers' (known: workers, upstreamKeepalive, accessLog, ` +
        "maxConnections, workerConnections, upstreamHttpVersion, cpuAffinity, proxyBuffering, gc, runtime, " +
        "extension, memoryLimit, coprocessorCores)",
    },
    {
      what: "nested field",
      schema: ProxyManifest,
      text: "name: x\ndescription: d\nnative:\n  binary: nginx\n  version:\n    args: [-v]\n    pattern: 3\n",
      error: `${F}:7: native.version.pattern: Invalid input: expected string, received number`,
    },
    {
      what: "array item",
      schema: ScenarioManifest,
      text: "name: x\ndescription: d\nrequests:\n  - path: /a\n  - path: b\nloads:\n  - label: l\n    model: constant-vus\n",
      error: `${F}:5: requests[1].path`,
    },
    {
      what: "invalid yaml",
      schema: ScenarioManifest,
      text: "name: x\ndescription: [unclosed\n",
      error: `${F}:`,
    },
    {
      what: "not a mapping",
      schema: ProxyManifest,
      text: "- a\n- b\n",
      error: `${F}:1: (root): expected a mapping`,
    },
  ])("$what", ({ schema, text, error }) => {
    expect(() => parseManifest(schema, text, F)).toThrow(error);
  });

  it("accepts a valid manifest and applies defaults", () => {
    const { manifest: m } = parseManifest(ProxyManifest, "name: x\ndescription: d\nkind: direct\n", F);
    expect(m.ready).toEqual({ path: "/health", timeoutS: 20 });
    expect(m.protocols).toEqual({ http1: { configs: [] } });
  });

  it("protocols: a known protocol per key, in scenarios and proxies", () => {
    expect(() =>
      parseManifest(ProxyManifest, "name: x\ndescription: d\nkind: direct\nprotocols:\n  http3: {}\n", F),
    ).toThrow(`${F}:5: protocols.http3: Unrecognized key: "http3"`);
    const text =
      "name: x\ndescription: d\nprotocol: grpcc\nrequests:\n  - path: /a\nloads:\n  - label: l\n    model: constant-vus\n";
    expect(() => parseManifest(ScenarioManifest, text, F)).toThrow(`${F}:3: protocol: Invalid option`);
    const { manifest: grpc } = parseManifest(ScenarioManifest, text.replace("grpcc", "grpc"), F);
    expect(grpc.protocol).toBe("grpc");
  });
});

/** Paths of the objects of a schema that accept a key they do not name (walks the zod tree). */
function lenientObjects(schema: z.core.$ZodType, at = "(root)"): string[] {
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  const walk = (inner: unknown, where: string) => lenientObjects(inner as z.core.$ZodType, where);
  switch (def.type) {
    case "object": {
      const catchall = def.catchall as z.core.$ZodType | undefined;
      const own = catchall?._zod.def.type === "never" ? [] : [at];
      const shape = def.shape as Record<string, unknown>;
      return [...own, ...Object.entries(shape).flatMap(([k, v]) => walk(v, `${at}.${k}`))];
    }
    case "array":
      return walk(def.element, `${at}[]`);
    case "optional":
    case "default":
    case "nullable":
      return walk(def.innerType, at);
    case "union":
      return (def.options as unknown[]).flatMap((o) => walk(o, at));
    case "record":
      return walk(def.valueType, `${at}.*`);
    default:
      return [];
  }
}

describe("every manifest object refuses a key it does not read", () => {
  it.each([
    ["proxy.yml", ProxyManifest],
    ["scenario.yml", ScenarioManifest],
    ["study.yml", StudyManifest],
  ])("%s: no lenient object anywhere", (_, schema) => {
    expect(lenientObjects(schema)).toEqual([]);
  });

  const S = "/m/scenarios/s/scenario.yml";
  const scenario = (load: string) =>
    `name: s\ndescription: d\nrequests:\n  - path: /a\nloads:\n  - label: l\n${load}`;
  it.each([
    {
      what: "a misspelt duration",
      load: "    model: constant-vus\n    duraionS: 5\n",
      errors: [`${S}:8: loads[0].duraionS: Unrecognized key: "duraionS"`],
    },
    {
      what: "a misspelt rate",
      load: "    model: constant-arrival-rate\n    rat: 1000\n",
      errors: [
        `${S}:8: loads[0].rat: Unrecognized key: "rat"`,
        `${S}:6: loads[0].rate: model constant-arrival-rate needs 'rate'`,
      ],
    },
    {
      what: "a fixed count without its count",
      load: "    model: fixed-count\n    vus: 10\n",
      errors: [`${S}:6: loads[0].requests: model fixed-count needs 'requests'`],
    },
    {
      what: "a rate on a closed model",
      load: "    model: constant-vus\n    rate: 1000\n",
      errors: [
        `${S}:8: loads[0].rate: only model constant-arrival-rate reads 'rate' (this load is constant-vus)`,
      ],
    },
    {
      what: "a misspelt key in a proxy's version",
      load: "",
      proxy:
        "name: x\ndescription: d\nnative:\n  binary: nginx\n  version:\n    args: [-v]\n    pattern: x\n    patern: y\n",
      errors: [`${S}:8: native.version.patern: Unrecognized key: "patern"`],
    },
    {
      what: "a misspelt key in a config",
      load: "",
      proxy:
        "name: x\ndescription: d\nimage:\n  configs:\n    - template: a\n      output: b\n      mount: /c\n      mode: 1\n",
      errors: [`${S}:8: image.configs[0].mode: Unrecognized key: "mode"`],
    },
  ])("$what: file:line: field", ({ load, proxy, errors }) => {
    const err = (() => {
      try {
        if (proxy) parseManifest(ProxyManifest, proxy, S);
        else parseManifest(ScenarioManifest, scenario(load), S);
      } catch (e) {
        return (e as Error).message;
      }
      return "accepted";
    })();
    expect(err.split("\n").sort()).toEqual([...errors].sort());
  });

  it("a load's own model fields are accepted", () => {
    const { manifest: m } = parseManifest(
      ScenarioManifest,
      scenario("    model: fixed-count\n    requests: 100\n"),
      S,
    );
    expect(m.loads[0]).toEqual({ label: "l", model: "fixed-count", requests: 100 });
  });
});

describe("loadManifests", () => {
  let root: string;
  const proxy = (name: string, extra = "") =>
    `name: ${name}\ndescription: d\nnative:\n  binary: nginx\n  configs:\n    - template: c.conf\n      output: c.conf\n  version:\n    args: [-v]\n    pattern: "(.*)"\n${extra}`;

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "pb-manifests-"));
    const write = async (rel: string, text: string) => {
      await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
      await writeFile(path.join(root, rel), text);
    };
    await write("builtin/a/proxy.yml", proxy("a"));
    await write("builtin/a/c.conf", "listen {{listenPort}};");
    await write("builtin/b/proxy.yml", proxy("b"));
    await write("builtin/b/c.conf", "b");
    await write("builtin/not-a-manifest/readme.txt", "x");
    await write("user/a/proxy.yml", proxy("a").replace("description: d", "description: user a"));
    await write("user/a/c.conf", "{{cores}}");
    await write("wrongname/z/proxy.yml", proxy("y"));
    await write("wrongname/z/c.conf", "");
    await write("notemplate/n/proxy.yml", proxy("n"));
    await write(
      "badplaceholder/q/proxy.yml",
      proxy("q", "tuning:\n  workers: 1\n").replace("binary: nginx", "binary: nginx\n  args: ['{{port}}']"),
    );
    await write("badplaceholder/q/c.conf", "{{listen_port}}");
    await write(
      "protocols/g/proxy.yml",
      proxy(
        "g",
        "protocols:\n  http1: {}\n  grpc:\n    configs:\n      - template: g.conf\n        output: other.conf\n",
      ),
    );
    await write("protocols/g/c.conf", "");
    await write(
      "protocolstemplate/h/proxy.yml",
      proxy(
        "h",
        "protocols:\n  grpc:\n    configs:\n      - template: missing.conf\n        output: c.conf\n",
      ),
    );
    await write("protocolstemplate/h/c.conf", "");
    await write(
      "shared/t/proxy.yml",
      proxy(
        "t",
        "image:\n  configs:\n    - template: c.conf\n      output: c.conf\n      mount: /etc/c.conf\n",
      ),
    );
    await write("shared/t/c.conf", "ok\nlisten {{port}};\n");
    await write(
      "scen/s/scenario.yml",
      "name: s\ndescription: d\nrequests:\n  - path: /a\nloads:\n  - label: l\n    model: constant-vus\n",
    );
  });
  afterAll(async () => rm(root, { recursive: true, force: true }));

  const dirs = () => ({
    builtinProxiesDir: path.join(root, "builtin"),
    builtinScenariosDir: path.join(root, "none"),
  });

  it("user folders override built-ins of the same name", async () => {
    const set = await loadManifests({ ...dirs(), proxiesDirs: [path.join(root, "user")] });
    expect([...set.proxies.keys()].sort()).toEqual(["a", "b"]);
    expect(set.proxies.get("a")?.manifest.description).toBe("user a");
    expect(set.proxies.get("a")?.builtIn).toBe(false);
    expect(set.proxies.get("b")?.builtIn).toBe(true);
  });

  it.each([
    ["wrongname", /z\/proxy\.yml:1: name: 'y' must equal its folder name 'z'/],
    ["notemplate", /n\/proxy\.yml:6: native\.configs\[0\]\.template: template c\.conf not found/],
    ["badplaceholder", /q\/proxy\.yml:5: native\.args: unknown placeholder \{\{port\}\}/],
    ["badplaceholder", /q\/c\.conf:1: unknown placeholder \{\{listen_port\}\}/],
    [
      "protocols",
      /g\/proxy\.yml:16: protocols\.grpc\.configs\[0\]\.output: other\.conf replaces no config of the native or image section \(their outputs: c\.conf\)/,
    ],
    [
      "protocolstemplate",
      /h\/proxy\.yml:\d+: protocols\.grpc\.configs\[0\]\.template: template missing\.conf not found/,
    ],
  ])("%s: %s", async (dir, error) => {
    await expect(loadManifests({ ...dirs(), proxiesDirs: [path.join(root, dir)] })).rejects.toThrow(error);
  });

  it("a template shared by the native and image sections is reported once, with its line", async () => {
    const err = await loadManifests({ ...dirs(), proxiesDirs: [path.join(root, "shared")] }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message.split("\n")).toEqual([
      expect.stringMatching(/t\/c\.conf:2: unknown placeholder \{\{port\}\}$/),
    ]);
  });

  it("checks the scenario's k6 script exists", async () => {
    await expect(loadManifests({ ...dirs(), scenariosDirs: [path.join(root, "scen")] })).rejects.toThrow(
      /s\/scenario\.yml:1: script: script\.js not found/,
    );
  });

  it("a --proxies-dir that is not a directory is an error naming the flag", async () => {
    await expect(loadManifests({ ...dirs(), proxiesDirs: [path.join(root, "missing")] })).rejects.toThrow(
      /--proxies-dir .*missing: not a directory/,
    );
  });

  it("the built-in proxies and scenarios are valid", async () => {
    const set = await loadManifests();
    for (const name of ["direct", "nginx", "haproxy"]) expect(set.proxies.has(name)).toBe(true);
    for (const name of ["passthrough", "json-lookup"]) expect(set.scenarios.has(name)).toBe(true);
    expect(Object.keys(set.proxies.get("nginx")!.manifest.protocols)).toEqual([
      "http1",
      "https",
      "h2c",
      "h2",
      "grpc",
      "grpcs",
    ]);
    expect(Object.keys(set.proxies.get("haproxy")!.manifest.protocols)).toEqual([
      "http1",
      "https",
      "h2c",
      "h2",
      "grpc",
      "grpcs",
    ]);
    expect(Object.keys(set.proxies.get("caddy")!.manifest.protocols)).toEqual(["http1", "https", "h2"]);
    expect(Object.keys(set.proxies.get("direct")!.manifest.protocols)).toEqual([
      "http1",
      "https",
      "grpc",
      "grpcs",
    ]);
    expect(Object.keys(set.proxies.get("grpc-gateway")!.manifest.protocols)).toEqual(["http1", "grpc"]);
  });
});
