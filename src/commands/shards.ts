import type { Command } from "commander";
import { coreCount, resolveSettings } from "../runner/settings.js";
import { checkSplit, splitRefusal } from "../runner/shard.js";
import { findStudy } from "../measures/study/load.js";
import { UserError } from "../util/errors.js";
import { withoutUndefined } from "../util/objects.js";
import { addFlags, ownFlag, parsePositiveInt, toRequest, type FlagValues } from "./options.js";

interface ShardsFlags extends FlagValues {
  runners: number;
  study?: string;
}

/**
 * `proxybench shards`: whether a matrix splits over `--runners` runners (`run --shard I/N` on
 * each), refused with the reason when a shard would refuse it or get no cell. bench.yml's plan
 * job calls it on a hosted runner, before any benchmark runner is taken.
 */
export function register(program: Command): void {
  const command = program
    .command("shards")
    .description(
      "Check that a matrix splits over N runners (run --shard I/N on each), before any runner is taken",
    )
    .requiredOption("--runners <n>", "runners to split the matrix over", parsePositiveInt);
  addFlags(command, [
    "proxies",
    "scenarios",
    ownFlag("study", "a named study instead of proxies x scenarios (runs on one runner)"),
    "engine",
    "proxiesDir",
    "scenariosDir",
  ]);
  command.action(async (flags: ShardsFlags) => {
    if (flags.study !== undefined) await findStudy(flags.study);
    const refusal = splitRefusal({
      runners: flags.runners,
      ...withoutUndefined({ study: flags.study, engine: flags.engine, scenariosDirs: flags.scenariosDir }),
    });
    if (refusal) throw new UserError(refusal);
    if (flags.study !== undefined) {
      process.stdout.write(`study ${flags.study}: one runner\n`);
      return;
    }
    const { settings } = resolveSettings({ ...toRequest(flags), runtime: "docker" }, coreCount());
    const runners = await checkSplit(settings, flags.runners);
    process.stdout.write(`the matrix splits over ${runners} runner${runners === 1 ? "" : "s"}\n`);
  });
}
