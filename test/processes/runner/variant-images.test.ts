import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as engines from "../../../src/engines/index.js";
import { runBenchmark } from "../../../src/measures/wall-clock/run.js";
import type { ProcessSpec, Runtime } from "../../../src/runner/runtime.js";
import { parseVariant } from "../../../src/runner/variants.js";
import { collectText, lightScenarioDir } from "../../support/runner/helpers.js";

// A docker run of two variants with a stand-in runtime that records the image of every proxy
// it is asked to start and refuses to start it: the cells fail at once, no load is sent.
describe("a docker run of variants", () => {
  it("starts each variant's proxy from its own image tag", async () => {
    const tmp = await mkdtemp(path.join(os.tmpdir(), "pb-variant-images-"));
    try {
      for (const side of ["base", "head"])
        await lightScenarioDir({ root: path.join(tmp, side, "scenarios") });
      await mkdir(path.join(tmp, "out"), { recursive: true });
      const images: string[] = [];
      const runtime: Runtime = {
        kind: "docker",
        start: (spec: ProcessSpec) => {
          images.push(spec.command);
          return Promise.reject(new Error("no engine here"));
        },
      };
      const cpus = os.cpus().length >= 2 ? "loadgen=0,proxy=1,upstream=1" : "loadgen=0,proxy=0,upstream=0";
      const outcome = await runBenchmark(
        {
          proxies: ["envoy"],
          scenarios: ["light"],
          repetitions: 1,
          durationS: 1,
          warmupS: 0,
          cpus,
          runtime: "docker",
          imageTag: "ci",
          out: path.join(tmp, "out", "run"),
          variants: [parseVariant(`base:pb-base=${tmp}/base`), parseVariant(`head=${tmp}/head`)],
        },
        { engines, runtime, stdout: collectText(), stderr: collectText(), handleSignals: false },
      );
      expect(images.sort()).toEqual(["proxybench/envoy:ci", "proxybench/envoy:pb-base"]);
      expect(outcome.results.settings.variants?.[0]?.imageTag).toBe("pb-base");
      expect(outcome.exitCode).toBe(1);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});
