import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse, stringify } from "yaml";
import { describe, expect, it } from "vitest";
import * as engines from "../../../../../src/engines/index.js";
import { readResults } from "../../../../../src/results/io.js";
import type { ProcessSpec, Runtime } from "../../../../../src/runner/runtime.js";
import type { ExtensibilityOutcome } from "../../../../../src/measures/study/extensibility/run.js";
import { runStudy } from "../../../../../src/measures/study/study.js";
import { PROJECT_ROOT } from "../../../../../src/util/paths.js";

// The study under --runtime docker, through the runner, with a stand-in runtime that records
// every container it is asked for and starts none (no engine here): each coprocessor row asks
// for its coprocessor's image first, C#'s too, pinned to the coprocessor's core with the cap.

function sink() {
  return { write: () => true };
}

describe("the extensibility study under --runtime docker", () => {
  it("starts each coprocessor row's sidecar from its image, C# included, on its core with the cap", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "pb-ext-docker-"));
    try {
      const studies = path.join(root, "studies");
      await cp(path.join(PROJECT_ROOT, "studies", "extensibility"), path.join(studies, "extensibility"), {
        recursive: true,
      });
      const file = path.join(studies, "extensibility", "study.yml");
      const study = parse(await readFile(file, "utf8")) as Record<string, unknown>;
      study.scenarios = ["static-header"];
      await writeFile(file, stringify(study));
      const specs: ProcessSpec[] = [];
      const runtime: Runtime = {
        kind: "docker",
        start: (spec) => {
          specs.push(spec);
          return Promise.reject(new Error("no engine here"));
        },
      };
      const outcome = (await runStudy(
        "extensibility",
        {
          runtime: "docker",
          imageTag: "ci",
          proxies: ["envoy"],
          repetitions: 1,
          durationS: 1,
          warmupS: 0,
          cpus: "loadgen=0,proxy=1,upstream=1",
          out: path.join(root, "out"),
        },
        {
          engines,
          runtime,
          cores: 2,
          studiesDir: studies,
          stdout: sink(),
          stderr: sink(),
          handleSignals: false,
        },
      )) as ExtensibilityOutcome;
      const sidecars = specs.filter((s) => s.name.startsWith("sidecar:"));
      expect(sidecars.map((s) => s.command)).toEqual(
        ["go", "node", "python", "java", "csharp"].map((n) => `proxybench/coprocessor-${n}:ci`),
      );
      const csharp = sidecars.find((s) => s.name === "sidecar:coprocessor-csharp");
      expect(csharp).toMatchObject({ cpus: [0], memoryBytes: 1073741824, args: [] });
      expect(csharp?.env?.ASPNETCORE_URLS).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(csharp?.cwd).toBeUndefined();
      // The rows without a coprocessor start the gateway's image; none is measured here.
      expect(specs.filter((s) => s.name === "proxy:envoy").map((s) => s.command)).toEqual([
        "proxybench/envoy:ci",
        "proxybench/envoy:ci",
        "proxybench/envoy:ci",
      ]);
      const cells = outcome.runs[0]?.results?.cells ?? [];
      const reason = cells.find((c) => c.variant === "csharp")?.reasons.join(" ");
      expect(reason).toContain("sidecar coprocessor-csharp could not start: no engine here");
      const saved = await readResults(outcome.runs[0]?.dir ?? "");
      expect(saved.environment.limits?.coprocessor).toEqual({
        cores: [0],
        memoryBytes: 1073741824,
        how: "docker run --cpuset-cpus --memory",
      });
      expect(outcome.markdown).toContain("(docker --memory)");
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
