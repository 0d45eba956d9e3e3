import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { UserError } from "../util/errors.js";

/** Writes to --out-file FILE (creating its folder), or to stdout. */
export async function writeOutput(text: string, out: string | undefined): Promise<void> {
  if (out === undefined || out === "-") {
    process.stdout.write(text);
    return;
  }
  try {
    await mkdir(path.dirname(path.resolve(out)), { recursive: true });
    await writeFile(out, text);
  } catch (err) {
    throw new UserError(`--out-file ${out}: cannot write (${(err as Error).message})`);
  }
}
