import { stat } from "node:fs/promises";
import path from "node:path";
import type { z } from "zod";
import { checkedBySchema, UserError } from "../util/errors.js";
import { failedRead, readJsonFile } from "../util/files.js";
import { Results } from "./schema.js";

export const RESULTS_FILE = "results.json";

/** Accepts a results directory or the path of its file (results.json, or `name`). */
export function resultsFilePath(dirOrFile: string, name = RESULTS_FILE): string {
  return dirOrFile.endsWith(".json") ? dirOrFile : path.join(dirOrFile, name);
}

/** Reads and validates a results.json; every problem names the file and the field. */
export async function readResults(dirOrFile: string): Promise<Results> {
  return readResultsFile(resultsFilePath(dirOrFile), "results", Results, refuseUnknownVersion);
}

/**
 * Reads a results file (`what` names its kind in a read error) and validates it with `schema`,
 * after `check` (a schema version); every problem names the file, and the field.
 */
export async function readResultsFile<T>(
  file: string,
  what: string,
  schema: z.ZodType<T>,
  check?: (file: string, data: unknown) => void,
): Promise<T> {
  const cannotRead = `${file}: cannot read ${what}`;
  const info = await stat(file).catch(failedRead(cannotRead));
  if (!info.isFile()) throw new UserError(`${file}: not a file`);
  const data = await readJsonFile(file, cannotRead);
  check?.(file, data);
  return checkedBySchema(schema, data, file);
}

/** The schemaVersions this reader accepts (from the schema itself). */
export const READ_VERSIONS: readonly number[] = Results.shape.schemaVersion.options.map((o) => o.value);

/** A results.json of another version says which it is and which this proxybench reads. */
function refuseUnknownVersion(file: string, data: unknown): void {
  const version = (data as { schemaVersion?: unknown } | null)?.schemaVersion;
  if (typeof version === "number" && READ_VERSIONS.includes(version)) return;
  const newer = typeof version === "number" && version > Math.max(...READ_VERSIONS);
  throw new UserError(
    `${file}: schemaVersion: ${version === undefined ? "missing" : JSON.stringify(version)}: this proxybench reads schemaVersion ${READ_VERSIONS.join(" and ")}${newer ? " (the file was written by a newer proxybench)" : ""}`,
  );
}
