import type { Command } from "commander";
import { getEngine } from "../engines/index.js";
import { loadManifests } from "../manifests/load.js";
import { doctorExitCode, renderChecks, runChecks } from "../runner/doctor.js";
import { collect } from "./options.js";

export function register(program: Command): void {
  program
    .command("doctor")
    .description("Check this machine for a trustworthy run: tools, proxies, cores, governor, ulimit, load.")
    .option("--json", "print JSON")
    .option("--proxies-dir <dir>", "extra folder of proxies/<name>/proxy.yml (repeatable)", collect)
    .action(async (flags: { json?: boolean; proxiesDir?: string[] }) => {
      const manifests = await loadManifests(flags.proxiesDir ? { proxiesDirs: flags.proxiesDir } : {});
      const checks = await runChecks({ manifests, getEngine });
      process.stdout.write(flags.json ? `${JSON.stringify(checks, null, 2)}\n` : `${renderChecks(checks)}\n`);
      process.exitCode = doctorExitCode(checks);
    });
}
