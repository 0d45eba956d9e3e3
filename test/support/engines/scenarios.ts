import { readFile } from "node:fs/promises";
import path from "node:path";
import { parse } from "yaml";
import { ScenarioManifest } from "../../../src/manifests/schema.js";
import { PROJECT_ROOT } from "../../../src/util/paths.js";

const SCENARIOS_DIR = path.join(PROJECT_ROOT, "scenarios");

/** A scenario shipped in scenarios/, validated. */
export async function loadScenario(name: string): Promise<{ manifest: ScenarioManifest; dir: string }> {
  const dir = path.join(SCENARIOS_DIR, name);
  const text = await readFile(path.join(dir, "scenario.yml"), "utf8");
  return { manifest: ScenarioManifest.parse(parse(text)), dir };
}
