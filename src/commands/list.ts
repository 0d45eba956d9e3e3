import type { Command } from "commander";
import { loadManifests } from "../manifests/load.js";
import { listProxies, listScenarios, renderProxies, renderScenarios } from "../doctor/listing.js";
import { formatStudyListings, listStudies } from "../measures/study/list.js";
import { addFlags, textOrJson, toRequest, type FlagValues } from "./options.js";
import { pickDefined } from "../util/objects.js";

/** `proxybench list`: what can run here (src/doctor/listing.ts, src/measures/study/list.ts). */
export function register(program: Command): void {
  const command = program
    .command("list")
    .description("List proxies, scenarios and studies, and whether each proxy can run here.");
  addFlags(command, [textOrJson(), "proxiesDir", "scenariosDir"]).action(
    async (flags: FlagValues & { format: "text" | "json" }) => {
      const set = await loadManifests(pickDefined(toRequest(flags), ["proxiesDirs", "scenariosDirs"]));
      const [proxies, studies] = await Promise.all([listProxies(set), listStudies({}, undefined, set)]);
      const scenarios = listScenarios(set);
      if (flags.format === "json") {
        process.stdout.write(`${JSON.stringify({ proxies, scenarios, studies }, null, 2)}\n`);
      } else {
        process.stdout.write(
          `${renderProxies(proxies)}\n\n${renderScenarios(scenarios)}\n\n${formatStudyListings(studies)}\n`,
        );
      }
    },
  );
}
