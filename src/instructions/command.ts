import type { RunRequest } from "../runner/settings.js";
import { UserError } from "../util/errors.js";
import { pickDefined } from "../util/objects.js";
import { runInstructions } from "./run.js";
import { renderInstructionsMarkdown } from "./report.js";

/** The flags of `proxybench run` that `--measure instructions` reads (the others are refused). */
const ACCEPTED = new Set([
  "proxies",
  "scenarios",
  "repetitions",
  "cpus",
  "out",
  "proxiesDir",
  "scenariosDir",
  "variant",
  "variantProxiesDir",
  "variantScenariosDir",
  "measure",
  "runtime",
  "imageTag",
]);

const FLAG_NAMES: Record<string, string> = {
  engine: "--engine",
  duration: "--duration",
  warmup: "--warmup",
  load: "--load",
  resume: "--resume",
  study: "--study",
  findMaxRate: "--find-max-rate",
  maxP99: "--max-p99",
  noiseLimit: "--noise-limit",
  retries: "--retries",
  roundOrder: "--round-order",
  seed: "--seed",
};

/** Flags that have no meaning for a counted run, named in the error. */
export function checkInstructionsFlags(flags: object): void {
  const clashes = Object.entries(flags)
    .filter(([k, v]) => v !== undefined && !ACCEPTED.has(k))
    .map(([k]) => k);
  if (clashes.length > 0) {
    const names = clashes.map((k) => FLAG_NAMES[k] ?? `--${k}`).join(", ");
    throw new UserError(
      `--measure instructions and ${names} cannot be used together (a counted run sends a fixed sequence of requests)`,
    );
  }
}

/** Runs the counted benchmark (flags checked by `checkInstructionsFlags`), prints its report, returns the exit code. */
export async function runInstructionsCommand(request: RunRequest): Promise<number> {
  const { exitCode, results } = await runInstructions(
    pickDefined(request, [
      "proxies",
      "scenarios",
      "repetitions",
      "cpus",
      "out",
      "proxiesDirs",
      "scenariosDirs",
      "variants",
      "runtime",
      "imageTag",
    ]),
  );
  process.stdout.write(renderInstructionsMarkdown(results));
  return exitCode;
}
