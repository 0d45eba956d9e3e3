import type { Command } from "commander";
import { getEngine } from "../engines/index.js";
import { loadManifests } from "../manifests/load.js";
import type { Check } from "../doctor/check.js";
import { doctorExitCode, renderChecks, runChecks } from "../doctor/checks.js";
import { engineCheck, studyChecks } from "../doctor/needs.js";
import { findStudy } from "../measures/study/load.js";
import { addFlags, ownFlag, textOrJson, type FlagValues } from "./options.js";

interface DoctorFlags extends Pick<FlagValues, "proxiesDir" | "study" | "engine"> {
  format: "text" | "json";
}

/** The machine's checks, then what the named study or engine needs (replacing its general check). */
async function doctorChecks(flags: DoctorFlags): Promise<Check[]> {
  const manifests = await loadManifests(flags.proxiesDir ? { proxiesDirs: flags.proxiesDir } : {});
  const study = flags.study !== undefined ? await findStudy(flags.study) : undefined;
  const named: Check[] = [];
  if (flags.engine) named.push(await engineCheck(flags.engine, getEngine, `--engine ${flags.engine}`));
  if (study) named.push(...(await studyChecks(study, manifests, getEngine)));
  const replaced = new Set(named.map((c) => c.name));
  const general = (await runChecks({ manifests, getEngine })).filter((c) => !replaced.has(c.name));
  return [...general, ...named];
}

export function register(program: Command): void {
  const command = program
    .command("doctor")
    .description("Check this machine for a trustworthy run: tools, proxies, cores, governor, ulimit, load.");
  addFlags(command, [
    textOrJson(),
    "proxiesDir",
    ownFlag("study", "also check what this study needs (its engine and proxies)"),
    ownFlag("engine", "also check this load generator"),
  ]).action(async (flags: DoctorFlags) => {
    const checks = await doctorChecks(flags);
    process.stdout.write(
      flags.format === "json" ? `${JSON.stringify(checks, null, 2)}\n` : `${renderChecks(checks)}\n`,
    );
    process.exitCode = doctorExitCode(checks);
  });
}
