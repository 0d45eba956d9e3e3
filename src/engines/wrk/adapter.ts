import { mkdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { PROJECT_ROOT } from "../../util/paths.js";
import { UserError } from "../../util/errors.js";
import { locateOnce } from "../locate.js";
import { emptyMeasurement } from "../measurement.js";
import { cpuFields, engineProcessErrors, invocationProcess, runEngineProcess } from "../process.js";
import type { EngineAdapter, EngineInvocation, EngineMeasurement } from "../types.js";
import { buildWrkArgs, buildWrkEnv, wrkDurationS } from "./args.js";
import { normaliseWrkSummary } from "./summary.js";

/** The shared wrk script: wrk cannot check bodies, so every scenario uses the same one. */
const WRK_SCRIPT = path.join(PROJECT_ROOT, "scenarios", "lib", "wrk.lua");

const WRK_SLACK_S = 30;

export class WrkEngine implements EngineAdapter {
  readonly name = "wrk" as const;
  readonly locate = locateOnce("wrk", ["-v"], "install it with `sudo apt-get install wrk` (Debian, Ubuntu)");

  async run(inv: EngineInvocation): Promise<EngineMeasurement> {
    const { path: wrk } = await this.locate();
    const args = buildWrkArgs(inv, WRK_SCRIPT); // validates the load model before anything starts
    await mkdir(inv.outDir, { recursive: true });
    const summaryName = `${inv.fileStem}.wrk.json`;
    const logName = `${inv.fileStem}.wrk.txt`;
    const summaryFile = path.resolve(inv.outDir, summaryName);
    const logFile = path.resolve(inv.outDir, logName);
    const durationS = wrkDurationS(inv.durationS);
    // never read a summary or a log left by an earlier run with the same stem
    await Promise.all([rm(summaryFile, { force: true }), rm(logFile, { force: true })]);
    const result = await runEngineProcess({
      ...invocationProcess("wrk", inv),
      command: wrk,
      args,
      env: buildWrkEnv(inv, summaryFile),
      logFile,
      timeoutMs: (durationS + WRK_SLACK_S) * 1000,
    });
    const engineErrors = await engineProcessErrors("wrk", result, durationS + WRK_SLACK_S, logFile);
    const common = {
      exitCode: result.exitCode,
      engineErrors,
      ...cpuFields(result),
    };
    let text: string;
    try {
      text = await readFile(summaryFile, "utf8");
    } catch {
      if (engineErrors.length === 0) engineErrors.push(`wrk wrote no summary (${summaryName})`);
      return { ...emptyMeasurement(durationS), ...common, raw: [logName] };
    }
    try {
      const figures = normaliseWrkSummary(JSON.parse(text) as unknown, summaryFile);
      return { ...figures, ...common, raw: [summaryName, logName] };
    } catch (err) {
      engineErrors.push(err instanceof UserError ? err.message : `${summaryFile}: ${String(err)}`);
      return { ...emptyMeasurement(durationS), ...common, raw: [summaryName, logName] };
    }
  }
}
