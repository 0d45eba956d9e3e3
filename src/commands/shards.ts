import { Option, type Command } from "commander";
import { Engine } from "../results/schema.js";
import { coreCount, resolveSettings } from "../runner/settings.js";
import { checkSplit, splitRefusal } from "../runner/shard.js";
import { UserError } from "../util/errors.js";
import { withoutUndefined } from "../util/objects.js";
import { collect, parseCsv, parsePositiveInt } from "./options.js";

interface ShardsFlags {
  runners: number;
  proxies?: string[];
  scenarios?: string[];
  study?: string;
  engine?: Engine;
  proxiesDir?: string[];
  scenariosDir?: string[];
}

/**
 * `proxybench shards`: whether a matrix splits over `--runners` runners (`run --shard I/N` on
 * each), refused with the reason when a shard would refuse it or get no cell. bench.yml's plan
 * job calls it on a hosted runner, before any benchmark runner is taken.
 */
export function register(program: Command): void {
  program
    .command("shards")
    .description(
      "Check that a matrix splits over N runners (run --shard I/N on each), before any runner is taken",
    )
    .requiredOption("--runners <n>", "runners to split the matrix over", parsePositiveInt)
    .option("-p, --proxies <names>", "comma-separated proxies (default: direct,nginx,haproxy)", parseCsv)
    .option(
      "-s, --scenarios <names>",
      "comma-separated scenarios (default: passthrough,json-lookup)",
      parseCsv,
    )
    .option("--study <name>", "a named study instead of proxies x scenarios (runs on one runner)")
    .addOption(
      new Option("-e, --engine <engine>", "load generator for every scenario").choices(Engine.options),
    )
    .option("--proxies-dir <dir>", "extra folder of proxies/<name>/proxy.yml (repeatable)", collect)
    .option("--scenarios-dir <dir>", "extra folder of scenarios/<name>/scenario.yml (repeatable)", collect)
    .action(async (flags: ShardsFlags) => {
      const refusal = splitRefusal({
        runners: flags.runners,
        ...withoutUndefined({ study: flags.study, engine: flags.engine, scenariosDirs: flags.scenariosDir }),
      });
      if (refusal) throw new UserError(refusal);
      if (flags.study !== undefined) {
        process.stdout.write(`study ${flags.study}: one runner\n`);
        return;
      }
      const { settings } = resolveSettings(
        withoutUndefined({
          proxies: flags.proxies,
          scenarios: flags.scenarios,
          engine: flags.engine,
          proxiesDirs: flags.proxiesDir,
          scenariosDirs: flags.scenariosDir,
          runtime: "docker" as const,
        }),
        coreCount(),
      );
      const runners = await checkSplit(settings, flags.runners);
      process.stdout.write(`the matrix splits over ${runners} runner${runners === 1 ? "" : "s"}\n`);
    });
}
