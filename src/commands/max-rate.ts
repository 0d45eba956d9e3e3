import type { Command } from "commander";
import { dryRunMaxRate, findMaxRates, type MaxRateRequest } from "../measures/max-rate/run.js";
import { addFlags, ownFlag, toRequest, type FlagValues } from "./options.js";

export function register(program: Command): void {
  const command = program
    .command("max-rate")
    .description(
      "Search each proxy's highest sustainable arrival rate (p99 under --max-p99, no errors) with k6's open model, natively, one search per proxy x scenario.",
    );
  addFlags(command, [
    "proxies",
    ["scenarios", "passthrough"],
    ownFlag("duration", "length of each step of the search", "5"),
    ownFlag("warmup", "length of the discarded warm-up before each step, 0 for none", "0"),
    "maxP99",
    "cpus",
    "proxiesDir",
    "scenariosDir",
    "dryRun",
    "out",
  ]);
  command.action(async (flags: FlagValues) => {
    const request: MaxRateRequest = {
      ...toRequest(flags),
      scenarios: flags.scenarios ?? ["passthrough"],
      ...(flags.maxP99 === undefined ? {} : { maxP99Ms: flags.maxP99 }),
    };
    if (flags.dryRun) return dryRunMaxRate(request);
    const outcomes = await findMaxRates(request);
    // A search that found no rate at all is not a measurement.
    process.exitCode = outcomes.every((o) => o.result.rate !== undefined) ? 0 : 1;
  });
}
