import { readFile } from "node:fs/promises";
import path from "node:path";
import { PROJECT_ROOT } from "../../../src/util/paths.js";

export const FIXTURES = path.join(PROJECT_ROOT, "test", "fixtures");

export async function fixtureJson(relative: string): Promise<unknown> {
  return JSON.parse(await readFile(path.join(FIXTURES, relative), "utf8")) as unknown;
}
