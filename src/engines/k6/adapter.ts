import { mkdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { UserError } from "../../util/errors.js";
import { locateOnce } from "../locate.js";
import { logTail } from "../../util/logs.js";
import { cpuFields, invocationProcess, runEngineProcess } from "../process.js";
import type { EngineAdapter, EngineInvocation, EngineMeasurement } from "../types.js";
import { buildK6Args, buildK6Config, buildK6Env, k6GoRuntimeEnv } from "./config.js";
import { stageScript } from "./script.js";
import { k6ExitMeaning, k6LogErrors, normaliseK6Summary } from "./summary.js";
import { emptyMeasurement } from "../measurement.js";

/** Seconds k6 may take beyond the load itself (start-up, graceful stop, summary) before it is killed. */
const K6_SLACK_S = 60;

export interface K6RunOptions {
  /** setup() aborts when the target does not answer (default true; tests turn it off). */
  failFast?: boolean;
}

export class K6Engine implements EngineAdapter {
  readonly name = "k6" as const;
  readonly locate = locateOnce(
    "k6",
    ["version"],
    "run `npm run setup` (installs it in .tools/bin) or see https://grafana.com/docs/k6/latest/set-up/install-k6/",
  );

  async run(inv: EngineInvocation, options: K6RunOptions = {}): Promise<EngineMeasurement> {
    const { path: k6 } = await this.locate();
    await mkdir(inv.outDir, { recursive: true });
    const scriptPath = path.resolve(inv.scenarioDir, inv.scenario.script);
    const summaryName = `${inv.fileStem}.k6.json`;
    const logName = `${inv.fileStem}.k6.log`;
    const summaryFile = path.resolve(inv.outDir, summaryName);
    const logFile = path.resolve(inv.outDir, logName);
    const config = buildK6Config(inv, summaryFile, options.failFast ?? true);
    // never read a summary or a log left by an earlier run with the same stem
    await Promise.all([rm(summaryFile, { force: true }), rm(logFile, { force: true })]);
    const script = await stageScript(scriptPath);
    const result = await runEngineProcess({
      ...invocationProcess("k6", inv),
      command: k6,
      args: buildK6Args(script.path),
      env: buildK6Env(config, inv.caFile, k6GoRuntimeEnv(os.totalmem(), process.env)),
      cwd: inv.scenarioDir,
      logFile,
      timeoutMs: (config.durationS + K6_SLACK_S) * 1000,
    }).finally(() => script.remove());
    const engineErrors: string[] = [];
    if (result.aborted) engineErrors.push("the run was interrupted");
    if (result.timedOut)
      engineErrors.push(`k6 did not finish within ${config.durationS + K6_SLACK_S} s and was stopped`);
    const meaning = k6ExitMeaning(result.exitCode);
    // Exit 99 only says thresholds failed: proxybench's are no-ops, and regressions are judged in reports.
    if (meaning && result.exitCode !== 99 && !result.aborted && !result.timedOut) {
      const tail = await logTail(logFile, 20);
      const detail = k6LogErrors(tail).join("; ") || tail.split("\n").slice(-2).join(" ");
      engineErrors.push(detail ? `${meaning}: ${detail}` : meaning);
    }
    const base = { ...cpuFields(result), exitCode: result.exitCode, engineErrors };
    let text: string;
    try {
      text = await readFile(summaryFile, "utf8");
    } catch {
      engineErrors.push(`k6 wrote no summary (${summaryName})`);
      return { ...emptyMeasurement(config.durationS), ...base, raw: [logName] };
    }
    try {
      const figures = normaliseK6Summary(JSON.parse(text) as unknown, {
        file: summaryFile,
        durationS: config.durationS,
        model: config.load.model,
        acceptedStatus: config.check.status,
        protocol: config.protocol,
      });
      return { ...figures, ...base, raw: [summaryName, logName] };
    } catch (err) {
      engineErrors.push(err instanceof UserError ? err.message : `${summaryFile}: ${String(err)}`);
      return { ...emptyMeasurement(config.durationS), ...base, raw: [summaryName, logName] };
    }
  }
}
