import { readFile } from "node:fs/promises";
import path from "node:path";
import { PROJECT_ROOT } from "../../util/paths.js";
import { locateOnce } from "../locate.js";
import { emptyMeasurement } from "../measurement.js";
import { freshRunFiles, readFigures, runEngineProcess, runFields } from "../process.js";
import type { EngineAdapter, EngineInvocation, EngineMeasurement } from "../types.js";
import { wholeSeconds } from "../load.js";
import { buildWrkArgs, buildWrkEnv } from "./args.js";
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
    const { names, file } = await freshRunFiles(inv, { summary: "wrk.json", log: "wrk.txt" });
    const durationS = wholeSeconds(inv.durationS);
    const run = {
      command: wrk,
      args,
      env: buildWrkEnv(inv, file("summary")),
      logFile: file("log"),
      limitS: durationS + WRK_SLACK_S,
    };
    const result = await runEngineProcess("wrk", inv, run);
    const base = await runFields("wrk", result, run);
    const { engineErrors } = base;
    const read = await readFigures(file("summary"), async (summaryFile) =>
      normaliseWrkSummary(JSON.parse(await readFile(summaryFile, "utf8")) as unknown, summaryFile),
    );
    if ("figures" in read) return { ...read.figures, ...base, raw: [names.summary, names.log] };
    if (!read.missing) engineErrors.push(read.error);
    else if (engineErrors.length === 0) engineErrors.push(`wrk wrote no summary (${names.summary})`);
    const raw = read.missing ? [names.log] : [names.summary, names.log];
    return { ...emptyMeasurement(durationS), ...base, raw };
  }
}
