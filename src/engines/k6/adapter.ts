import { readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { locateOnce } from "../locate.js";
import { logTail } from "../../util/logs.js";
import { freshRunFiles, readFigures, runEngineProcess, runFields } from "../process.js";
import type { EngineAdapter, EngineInvocation, EngineMeasurement } from "../types.js";
import { buildK6Args, buildK6Config, buildK6Env, k6GoRuntimeEnv } from "./config.js";
import { stageScript } from "./script.js";
import { k6ExitMeaning, k6LogErrors, normaliseK6Summary } from "./summary.js";
import { emptyMeasurement } from "../measurement.js";

/** Seconds k6 may take beyond the load itself (start-up, graceful stop, summary) before it is killed. */
const K6_SLACK_S = 60;

/** k6's exit as an error, with the messages of its error lines. */
async function k6ExitError(exitCode: number | null, logFile: string): Promise<string | undefined> {
  const meaning = k6ExitMeaning(exitCode);
  // Exit 99 only says thresholds failed: proxybench's are no-ops, and regressions are judged in reports.
  if (!meaning || exitCode === 99) return undefined;
  const tail = await logTail(logFile, 20);
  const detail = k6LogErrors(tail).join("; ") || tail.split("\n").slice(-2).join(" ");
  return detail ? `${meaning}: ${detail}` : meaning;
}

export class K6Engine implements EngineAdapter {
  readonly name = "k6" as const;
  readonly locate = locateOnce(
    "k6",
    ["version"],
    "run `npm run setup` (installs it in .tools/bin) or see https://grafana.com/docs/k6/latest/set-up/install-k6/",
  );

  async run(
    inv: EngineInvocation,
    /** failFast: setup() aborts when the target does not answer (default true; tests turn it off). */
    options: { failFast?: boolean } = {},
  ): Promise<EngineMeasurement> {
    const { path: k6 } = await this.locate();
    const { names, file } = await freshRunFiles(inv, { summary: "k6.json", log: "k6.log" });
    const config = buildK6Config(inv, file("summary"), options.failFast ?? true);
    const script = await stageScript(path.resolve(inv.scenarioDir, inv.scenario.script));
    const run = {
      command: k6,
      args: buildK6Args(script.path),
      env: buildK6Env(config, inv.caFile, k6GoRuntimeEnv(os.totalmem(), process.env)),
      cwd: inv.scenarioDir,
      logFile: file("log"),
      limitS: config.durationS + K6_SLACK_S,
    };
    const result = await runEngineProcess("k6", inv, run).finally(() => script.remove());
    const base = await runFields("k6", result, run, k6ExitError);
    const read = await readFigures(file("summary"), async (summaryFile) =>
      normaliseK6Summary(JSON.parse(await readFile(summaryFile, "utf8")) as unknown, {
        file: summaryFile,
        durationS: config.durationS,
        model: config.load.model,
        acceptedStatus: config.check.status,
        protocol: config.protocol,
      }),
    );
    if ("figures" in read) return { ...read.figures, ...base, raw: [names.summary, names.log] };
    base.engineErrors.push(read.missing ? `k6 wrote no summary (${names.summary})` : read.error);
    const raw = read.missing ? [names.log] : [names.summary, names.log];
    return { ...emptyMeasurement(config.durationS), ...base, raw };
  }
}
