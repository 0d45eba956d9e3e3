import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { UserError } from "../../util/errors.js";
import { runCommand } from "../../util/processes.js";
import { locateOnce } from "../locate.js";
import { emptyMeasurement } from "../measurement.js";
import { cpuFields, engineProcessErrors, invocationProcess, runEngineProcess } from "../process.js";
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
    await mkdir(inv.outDir, { recursive: true });
    const names = {
      targets: `${inv.fileStem}.vegeta-targets.json`,
      results: `${inv.fileStem}.vegeta.bin`,
      json: `${inv.fileStem}.vegeta.json`,
      log: `${inv.fileStem}.vegeta.log`,
    };
    const file = (n: string) => path.resolve(inv.outDir, n);
    // never read results or a log left by an earlier run with the same stem
    await Promise.all(Object.values(names).map((n) => rm(file(n), { force: true })));
    await writeFile(file(names.targets), buildVegetaTargets(inv));
    const args = buildVegetaAttackArgs({
      inv,
      targetsFile: file(names.targets),
      resultsFile: file(names.results),
    });
    const result = await runEngineProcess({
      ...invocationProcess("vegeta", inv),
      command: vegeta,
      args,
      env: inv.cpus.length > 0 ? { GOMAXPROCS: String(inv.cpus.length) } : {},
      logFile: file(names.log),
      timeoutMs: (inv.durationS + VEGETA_SLACK_S) * 1000,
    });
    const engineErrors = await engineProcessErrors(
      "vegeta",
      result,
      inv.durationS + VEGETA_SLACK_S,
      file(names.log),
    );
    const common = { exitCode: result.exitCode, engineErrors, ...cpuFields(result) };
    const raw = [names.results, names.log, names.targets];
    const tally = new VegetaTally(scenarioCheck(inv.scenario));
    try {
      const encoded = await runCommand(vegeta, buildVegetaEncodeArgs(file(names.results), file(names.json)), {
        timeoutMs: VEGETA_SLACK_S * 1000,
      });
      if (encoded.code !== 0) {
        throw new UserError(
          `vegeta encode exited with code ${String(encoded.code)}: ${encoded.output.trim()}`,
        );
      }
      await tallyVegetaResults(file(names.json), tally);
    } catch (err) {
      if (engineErrors.length === 0) engineErrors.push(err instanceof Error ? err.message : String(err));
      return { ...emptyMeasurement(inv.durationS), ...common, raw };
    } finally {
      await rm(file(names.json), { force: true }); // every body, base64: large, and decoded again from .bin
    }
    const figures = tally.figures(plannedRequests(rate, inv.durationS));
    return { ...figures, ...common, checkProblems: tally.checkProblems(), raw };
  }
}
