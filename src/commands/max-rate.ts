import type { Command } from "commander";
import { DEFAULT_PROXIES } from "../runner/plan.js";
import { findMaxRates, type FindMaxRatesRequest } from "../studies/max-rate-run.js";
import { dryRunMaxRate } from "../studies/dry-run.js";
import { withoutUndefined } from "../util/objects.js";
import { addFlags, type MeasureFlags } from "./options.js";

export function register(program: Command): void {
  const command = program
    .command("max-rate")
    .description(
      "Search each proxy's highest sustainable arrival rate (p99 under --max-p99, no errors) with k6's open model, natively, one search per proxy x scenario.",
    );
  addFlags(command, [
    "proxies",
    ["scenarios", "comma-separated scenarios (default: passthrough)"],
    ["duration", "length of each step of the search (default: 5)"],
    ["warmup", "length of the discarded warm-up before each step (default: 0)"],
    "maxP99",
    "cpus",
    "proxiesDir",
    "scenariosDir",
    ["dryRun", "print the searches and the most time they take, run nothing"],
    "out",
  ]);
  command.action(async (flags: MeasureFlags) => {
    if (flags.dryRun) {
      await dryRunMaxRate(maxRateRequest(flags));
      return;
    }
    const outcomes = await findMaxRates(maxRateRequest(flags));
    // A search that found no rate at all is not a measurement.
    process.exitCode = outcomes.every((o) => o.result.rate !== undefined) ? 0 : 1;
  });
}

/** The searches the flags ask for. */
function maxRateRequest(flags: MeasureFlags): FindMaxRatesRequest {
  return {
    proxies: flags.proxies ?? DEFAULT_PROXIES,
    scenarios: flags.scenarios ?? ["passthrough"],
    ...withoutUndefined({
      cpus: flags.cpus,
      out: flags.out,
      durationS: flags.duration,
      warmupS: flags.warmup,
      maxP99Ms: flags.maxP99,
      proxiesDirs: flags.proxiesDir,
      scenariosDirs: flags.scenariosDir,
    }),
  };
}
