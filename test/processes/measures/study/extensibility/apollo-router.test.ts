import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadProxyFile, type LoadedProxy } from "../../../../../src/manifests/load.js";
import { readTemplates, writeConfigFiles } from "../../../../../src/runner/proxy-configs.js";
import { renderConfigs, type ProxyContext } from "../../../../../src/runner/specs.js";
import {
  derivedManifest,
  planOptions,
  type CoprocessorChoice,
} from "../../../../../src/measures/study/extensibility/options.js";
import { PROJECT_ROOT } from "../../../../../src/util/paths.js";
import { runCommand } from "../../../../../src/util/processes.js";
import {
  ROUTER_BIN,
  ROUTER_NOT_BUILT,
  routerBuilt,
} from "../../../../support/measures/study/apollo-router.js";

// Apollo Router's code path without load: its pinned build, every router.yaml the study renders
// checked by the router itself (`router config validate`), and the router's refusal to start
// an enterprise plugin without a licence, which is why those rows are skipped. The router runs
// under load in test/load/measures/study/extensibility/apollo-router-run.test.ts.

const ROUTER_DIR = path.join(PROJECT_ROOT, "proxies", "apollo-router");
const TESTS = ["graphql-static-header", "graphql-guid-response", "graphql-client-awareness"];
const GO: CoprocessorChoice = { name: "go", dir: "/c/go", binary: "/bin/go-cp", args: [], env: {} };

/** Every option's configs rendered natively into its own folder, as a run would. */
async function renderedOptions(): Promise<Array<{ label: string; workdir: string }>> {
  const router = await loadProxyFile(path.join(ROUTER_DIR, "proxy.yml"), true);
  const root = await mkdtemp(path.join(tmpdir(), "proxybench-router-configs-"));
  const out: Array<{ label: string; workdir: string }> = [];
  for (const test of TESTS) {
    const plan = planOptions(router, test, [GO], () => true, { APOLLO_ROUTER_LICENSE: "x" });
    for (const option of [undefined, ...plan.options]) {
      const label = `${test} ${option?.name ?? "baseline"}`;
      const manifest = derivedManifest(router.manifest, option, {
        memoryLimitBytes: 1 << 30,
        sidecarCpus: [0],
      });
      const proxy: LoadedProxy = { ...router, manifest };
      const workdir = path.join(root, label.replace(" ", "-"));
      const ctx: ProxyContext = {
        listenHost: "127.0.0.1",
        listenPort: 4000,
        upstreamHost: "127.0.0.1",
        upstreamPort: 8080,
        upstreamGrpcPort: 8081,
        cpus: [0],
        workdir,
        logFile: path.join(workdir, "router.log"),
        ...(option?.coprocessor ? { sidecarPort: 9000 } : {}),
      };
      await writeConfigFiles(renderConfigs(proxy, "native", ctx, await readTemplates(proxy, "native")));
      out.push({ label, workdir });
    }
  }
  return out;
}

describe("Apollo Router: the pinned build", () => {
  it("setup builds the crate.yml version, and the image is the same version", async () => {
    const { code, output } = await runCommand("node", ["scripts/needs.js", "--crate", "apollo-router"], {
      cwd: PROJECT_ROOT,
      timeoutMs: 20_000,
    });
    expect(code).toBe(0);
    const [crate, version, bin] = output.trim().split(" ");
    expect([crate, bin]).toEqual(["apollo-router", "router"]);
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    const dockerfile = await readFile(path.join(ROUTER_DIR, "Dockerfile"), "utf8");
    expect(/^FROM \S+:v(\S+)$/m.exec(dockerfile)?.[1]).toBe(version);
  });

  it("a proxy without a crate.yml is an error naming the file", async () => {
    const { code, output } = await runCommand("node", ["scripts/needs.js", "--crate", "nginx"], {
      cwd: PROJECT_ROOT,
      timeoutMs: 20_000,
    });
    expect(code).toBe(2);
    expect(output).toContain(`--crate nginx: no ${path.join(PROJECT_ROOT, "proxies", "nginx", "crate.yml")}`);
  });
});

describe(`Apollo Router: its rendered configs${routerBuilt ? "" : ` (${ROUTER_NOT_BUILT})`}`, () => {
  it.skipIf(!routerBuilt)(
    "every router.yaml the study renders is valid for the router",
    async () => {
      const options = await renderedOptions();
      // baseline, config and Rhai for the header; baseline and Rhai for GUIDs; the coprocessor's of all three.
      expect(options.length).toBe(10);
      for (const { label, workdir } of options) {
        const file = path.join(workdir, "router.yaml");
        const { code, output } = await runCommand(ROUTER_BIN, ["config", "validate", file], {
          timeoutMs: 30_000,
        });
        expect({ label, code, output }).toMatchObject({ label, code: 0 });
      }
    },
    120_000,
  );

  it.skipIf(!routerBuilt || process.env.APOLLO_ROUTER_LICENSE !== undefined)(
    "without a licence the router refuses its coprocessor plugin, and says why",
    async () => {
      const options = await renderedOptions();
      const { workdir } = options.find((o) => o.label === "graphql-static-header go") ?? { workdir: "" };
      const args = ["--config", `${workdir}/router.yaml`, "--supergraph", `${workdir}/supergraph.graphql`];
      const { code, output } = await runCommand(ROUTER_BIN, args, {
        timeoutMs: 30_000,
        env: { APOLLO_TELEMETRY_DISABLED: "true" },
      });
      // It exits on its own (a number, not a timeout's null), with an error, naming the plugin.
      expect(typeof code).toBe("number");
      expect(code).not.toBe(0);
      expect(output).toMatch(/Coprocessor plugin/);
    },
    60_000,
  );
});
