import { rm, writeFile } from "node:fs/promises";
import { UserError } from "../../util/errors.js";
import { runCommand } from "../../util/processes.js";
import { locateOnce } from "../locate.js";
import { emptyMeasurement } from "../measurement.js";
import { freshRunFiles, runEngineProcess, runFields } from "../process.js";
import type { EngineAdapter, EngineInvocation, EngineMeasurement } from "../types.js";
import {
  buildVegetaAttackArgs,
  buildVegetaEncodeArgs,
  buildVegetaTargets,
  plannedRequests,
  VEGETA_TIMEOUT_S,
  vegetaRate,
} from "./args.js";
import { scenarioCheck, tallyVegetaResults, VegetaTally } from "./results.js";

/**
 * vegeta (github.com/tsenart/vegeta, built by `npm run setup -- --engine vegeta` into
 * .tools/bin): the load generator of the Apollo Router extensibility study. A constant request
 * rate (open model); every response is kept (`vegeta attack -output`), then decoded
 * (`vegeta encode -to=json`) and judged one by one: status and the scenario's check, headers
 * and what the upstream saw included (the extensibility tests' proof that the work was done).
 */

/** Seconds vegeta may take beyond its load (its last requests' timeout, the encode step). */
const VEGETA_SLACK_S = VEGETA_TIMEOUT_S + 20;
const INSTALL_HINT = "run `npm run setup -- --engine vegeta` (builds the pinned version into .tools/bin)";

export class VegetaEngine implements EngineAdapter {
  readonly name = "vegeta" as const;
  readonly locate = locateOnce("vegeta", ["-version"], INSTALL_HINT);

  async run(inv: EngineInvocation): Promise<EngineMeasurement> {
    const { path: vegeta } = await this.locate();
    const rate = vegetaRate(inv); // validates the load model before anything starts
    const { names, file } = await freshRunFiles(inv, {
      targets: "vegeta-targets.json",
      results: "vegeta.bin",
      json: "vegeta.json",
      log: "vegeta.log",
    });
    await writeFile(file("targets"), buildVegetaTargets(inv));
    const run: Parameters<typeof runEngineProcess>[2] = {
      command: vegeta,
      args: buildVegetaAttackArgs({ inv, targetsFile: file("targets"), resultsFile: file("results") }),
      env: inv.cpus.length > 0 ? { GOMAXPROCS: String(inv.cpus.length) } : {},
      logFile: file("log"),
      limitS: inv.durationS + VEGETA_SLACK_S,
    };
    const result = await runEngineProcess("vegeta", inv, run);
    const common = await runFields("vegeta", result, run);
    const { engineErrors } = common;
    const raw = [names.results, names.log, names.targets];
    const tally = new VegetaTally(scenarioCheck(inv.scenario));
    try {
      const encoded = await runCommand(vegeta, buildVegetaEncodeArgs(file("results"), file("json")), {
        timeoutMs: VEGETA_SLACK_S * 1000,
      });
      if (encoded.code !== 0) {
        throw new UserError(
          `vegeta encode exited with code ${String(encoded.code)}: ${encoded.output.trim()}`,
        );
      }
      await tallyVegetaResults(file("json"), tally);
    } catch (err) {
      if (engineErrors.length === 0) engineErrors.push(err instanceof Error ? err.message : String(err));
      return { ...emptyMeasurement(inv.durationS), ...common, raw };
    } finally {
      await rm(file("json"), { force: true }); // every body, base64: large, and decoded again from .bin
    }
    const figures = tally.figures(plannedRequests(rate, inv.durationS));
    return { ...figures, ...common, checkProblems: tally.checkProblems(), raw };
  }
}
