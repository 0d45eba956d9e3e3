import { cp, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse, stringify } from "yaml";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as engines from "../../../../../src/engines/index.js";
import type { EngineApi } from "../../../../../src/measures/wall-clock/context.js";
import type { ExtensibilityOutcome } from "../../../../../src/measures/study/extensibility/run.js";
import { runStudy } from "../../../../../src/measures/study/study.js";
import { PROJECT_ROOT } from "../../../../../src/util/paths.js";
import { liveProcesses } from "../../../../../src/util/processes.js";
import { ROUTER_NOT_BUILT, routerBuilt } from "../../../../support/measures/study/apollo-router.js";

// The real Apollo Router (built by setup into .tools) in the extensibility study, briefly: the
// baseline and the Rhai row of the header and GUID tests measured and checked for their effect,
// a configuration that skips the work invalid, the licensed rows skipped with the reason.
// vegeta at 100 requests/s for one second a row.

const MEASURED = ["ok", "noisy", "loadgen-bound"];
const studyEngines: EngineApi = engines;

function sink() {
  let text = "";
  return { write: (s: string) => ((text += s), true), text: () => text };
}

/** The study with these tests and the Go coprocessor only (its rows need a licence). */
async function studyCopy(root: string, tests: string[]): Promise<string> {
  const studies = path.join(root, "studies");
  const dir = path.join(studies, "extensibility");
  await cp(path.join(PROJECT_ROOT, "studies", "extensibility"), dir, { recursive: true });
  const file = path.join(dir, "study.yml");
  const study = parse(await readFile(file, "utf8")) as Record<string, unknown> & {
    extensibility: Record<string, unknown>;
  };
  study.scenarios = tests;
  study.extensibility.coprocessors = ["go"];
  await writeFile(file, stringify(study));
  return studies;
}

/** Apollo Router's folder whose header rule inserts nothing the subgraph would see. */
async function routerCopy(root: string): Promise<string> {
  const proxies = path.join(root, "proxies");
  const router = path.join(proxies, "apollo-router");
  await cp(path.join(PROJECT_ROOT, "proxies", "apollo-router"), router, { recursive: true });
  const file = path.join(router, "extensibility", "config-static-header.router.yaml");
  const text = await readFile(file, "utf8");
  await writeFile(file, text.replace("name: source", "name: not-source"));
  return proxies;
}

describe(`extensibility study, the real Apollo Router${routerBuilt ? "" : ` (${ROUTER_NOT_BUILT})`}`, () => {
  let licence: string | undefined;
  beforeEach(() => {
    licence = process.env.APOLLO_ROUTER_LICENSE;
    delete process.env.APOLLO_ROUTER_LICENSE;
  });
  afterEach(() => {
    if (licence !== undefined) process.env.APOLLO_ROUTER_LICENSE = licence;
  });

  it.skipIf(!routerBuilt)(
    "Rhai's header and GUIDs measured and proven, a config that skips the work invalid, the coprocessor skipped for its licence",
    async () => {
      const root = await mkdtemp(path.join(tmpdir(), "proxybench-ext-router-"));
      const proxiesDirs = [await routerCopy(root)];
      const studiesDir = await studyCopy(root, ["graphql-static-header", "graphql-guid-response"]);
      const stdout = sink();
      const outcome = (await runStudy(
        "extensibility",
        {
          repetitions: 1,
          warmupS: 0.25,
          durationS: 1,
          retries: 0,
          out: path.join(root, "out"),
          proxiesDirs,
          proxies: ["apollo-router"],
        },
        { engines: studyEngines, stdout, stderr: sink(), handleSignals: false, studiesDir },
      )) as ExtensibilityOutcome;
      expect(outcome.runs.map((r) => r.test)).toEqual(["graphql-static-header", "graphql-guid-response"]);
      const [header, guid] = outcome.runs.map((r) => r.results?.cells ?? []);
      const status = (cells: typeof header, option: string) => cells?.find((c) => c.variant === option);
      expect(MEASURED).toContain(status(header, "baseline")?.status);
      expect(MEASURED).toContain(status(header, "script")?.status);
      expect(status(header, "config")?.status).toBe("invalid");
      expect(status(header, "config")?.reasons.join(" ")).toContain(
        'upstream saw data.source: nothing (expected "config")',
      );
      expect(MEASURED).toContain(status(guid, "baseline")?.status);
      expect(MEASURED).toContain(status(guid, "script")?.status);
      expect(outcome.runs[0]?.skipped.find((s) => s.option === "go")?.reason).toMatch(
        /coprocessor plugin is a GraphOS Enterprise feature.*set APOLLO_ROUTER_LICENSE/,
      );
      expect(outcome.exitCode).toBe(1);
      expect(liveProcesses()).toEqual([]);
    },
    180_000,
  );
});
