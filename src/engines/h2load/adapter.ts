import { readFile, writeFile } from "node:fs/promises";
import { locateOnce } from "../locate.js";
import { emptyMeasurement } from "../measurement.js";
import { freshRunFiles, readFigures, runEngineProcess, runFields } from "../process.js";
import type { EngineAdapter, EngineInvocation, EngineMeasurement } from "../types.js";
import { wholeSeconds } from "../load.js";
import { buildH2loadArgs, h2loadRequest } from "./args.js";
import { parseFinishedS, readH2loadLog } from "./log.js";

/**
 * h2load: max rate over HTTP/2 (h2c and h2). It does not verify the proxy's certificate (it has
 * no option to); the runner's handshake and probe have verified it against the run's CA before.
 */

const H2LOAD_SLACK_S = 30;
const INSTALL_HINT =
  "install it with `sudo apt-get install nghttp2-client` (or `npm run setup -- --engine h2load`)";

export class H2loadEngine implements EngineAdapter {
  readonly name = "h2load" as const;
  readonly locate = locateOnce("h2load", ["--version"], INSTALL_HINT);

  async run(inv: EngineInvocation): Promise<EngineMeasurement> {
    const { path: h2load } = await this.locate();
    const request = h2loadRequest(inv);
    const { names, file } = await freshRunFiles(inv, {
      log: "h2load.tsv",
      out: "h2load.txt",
      body: "h2load-body",
    });
    if (request.body !== undefined) await writeFile(file("body"), request.body);
    const durationS = wholeSeconds(inv.durationS);
    const run = {
      command: h2load,
      args: buildH2loadArgs(inv, {
        logFile: file("log"),
        ...(request.body === undefined ? {} : { bodyFile: file("body") }),
      }),
      env: {},
      logFile: file("out"),
      limitS: durationS + H2LOAD_SLACK_S,
    };
    const result = await runEngineProcess("h2load", inv, run);
    const base = await runFields("h2load", result, run);
    const summary = await readFile(file("out"), "utf8").catch(() => "");
    const read = await readFigures(file("log"), (log) =>
      readH2loadLog(log, parseFinishedS(summary) ?? durationS),
    );
    if ("figures" in read) return { ...read.figures, ...base, raw: [names.log, names.out] };
    base.engineErrors.push(read.missing ? `h2load wrote no log (${names.log})` : read.error);
    return { ...emptyMeasurement(durationS), ...base, raw: [names.out] };
  }
}
