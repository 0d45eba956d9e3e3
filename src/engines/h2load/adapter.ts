import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { UserError } from "../../util/errors.js";
import { locateOnce } from "../locate.js";
import { emptyMeasurement } from "../measurement.js";
import { cpuFields, engineProcessErrors, invocationProcess, runEngineProcess } from "../process.js";
import type { EngineAdapter, EngineInvocation, EngineMeasurement } from "../types.js";
import { buildH2loadArgs, h2loadDurationS, h2loadRequest } from "./args.js";
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
    await mkdir(inv.outDir, { recursive: true });
    const names = {
      log: `${inv.fileStem}.h2load.tsv`,
      out: `${inv.fileStem}.h2load.txt`,
      body: `${inv.fileStem}.h2load-body`,
    };
    const file = (n: string) => path.resolve(inv.outDir, n);
    // never read a log left by an earlier run with the same stem
    await Promise.all(Object.values(names).map((n) => rm(file(n), { force: true })));
    if (request.body !== undefined) await writeFile(file(names.body), request.body);
    const args = buildH2loadArgs(inv, {
      logFile: file(names.log),
      ...(request.body === undefined ? {} : { bodyFile: file(names.body) }),
    });
    const durationS = h2loadDurationS(inv.durationS);
    const result = await runEngineProcess({
      ...invocationProcess("h2load", inv),
      command: h2load,
      args,
      env: {},
      logFile: file(names.out),
      timeoutMs: (durationS + H2LOAD_SLACK_S) * 1000,
    });
    const engineErrors = await engineProcessErrors(
      "h2load",
      result,
      durationS + H2LOAD_SLACK_S,
      file(names.out),
    );
    const common = { exitCode: result.exitCode, engineErrors, ...cpuFields(result) };
    const summary = await readFile(file(names.out), "utf8").catch(() => "");
    try {
      const figures = await readH2loadLog(file(names.log), parseFinishedS(summary) ?? durationS);
      return { ...figures, ...common, raw: [names.log, names.out] };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT") engineErrors.push(`h2load wrote no log (${names.log})`);
      else engineErrors.push(err instanceof UserError ? err.message : `${names.log}: ${String(err)}`);
      return { ...emptyMeasurement(durationS), ...common, raw: [names.out] };
    }
  }
}
