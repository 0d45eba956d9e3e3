import { parseVariant } from "../runner/variants.js";
import { UserError } from "../util/errors.js";
import { runInstructions } from "./run.js";
import { renderInstructionsMarkdown } from "./report.js";

/** The flags of `proxybench run` that `--measure instructions` reads (the others are refused). */
export interface InstructionsFlags {
  proxies?: string[];
  scenarios?: string[];
  repetitions?: number;
  cpus?: string;
  out?: string;
  proxiesDir?: string[];
  scenariosDir?: string[];
  variant?: string[];
}

const ACCEPTED = new Set([
  "proxies",
  "scenarios",
  "repetitions",
  "cpus",
  "out",
  "proxiesDir",
  "scenariosDir",
  "variant",
  "measure",
]);

const FLAG_NAMES: Record<string, string> = {
  engine: "--engine",
  duration: "--duration",
  warmup: "--warmup",
  load: "--load",
  runtime: "--runtime",
  imageTag: "--image-tag",
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
      `--measure instructions and ${names} cannot be used together (a counted run sends a fixed sequence of requests natively)`,
    );
  }
}

/** Runs the counted benchmark, prints its report, returns the exit code. */
export async function runInstructionsCommand(flags: InstructionsFlags): Promise<number> {
  checkInstructionsFlags(flags);
  const { exitCode, results } = await runInstructions({
    ...(flags.proxies ? { proxies: flags.proxies } : {}),
    ...(flags.scenarios ? { scenarios: flags.scenarios } : {}),
    ...(flags.repetitions !== undefined ? { repetitions: flags.repetitions } : {}),
    ...(flags.cpus !== undefined ? { cpus: flags.cpus } : {}),
    ...(flags.out !== undefined ? { out: flags.out } : {}),
    ...(flags.proxiesDir ? { proxiesDirs: flags.proxiesDir } : {}),
    ...(flags.scenariosDir ? { scenariosDirs: flags.scenariosDir } : {}),
    ...(flags.variant ? { variants: flags.variant.map((v) => parseVariant(v)) } : {}),
  });
  process.stdout.write(renderInstructionsMarkdown(results));
  return exitCode;
}
