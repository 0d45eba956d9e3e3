import { readFileSync } from "node:fs";
import path from "node:path";
import { Results } from "../../../src/results/schema.js";

export const FIXTURES = path.resolve("test/fixtures/publish");
export const RESULTS_DIR = path.join(FIXTURES, "results");

/** The fixture results, validated, as a fresh copy a test may change. */
export function fixtureResults(): Results {
  return Results.parse(JSON.parse(readFileSync(path.join(RESULTS_DIR, "results.json"), "utf8")));
}
