import { readFile } from "node:fs/promises";
import { UserError } from "./errors.js";

/** Reading a file a user names: a failure is a UserError naming the file. */

/** A catch handler throwing the error as `<cannotRead> (<its message>)`. */
export function failedRead(cannotRead: string): (err: Error) => never {
  return (err) => {
    throw new UserError(`${cannotRead} (${err.message})`);
  };
}

/** The text of `file`; a failed read says `<cannotRead> (<why>)`. */
export async function readUserFile(file: string, cannotRead = `${file}: cannot read`): Promise<string> {
  return readFile(file, "utf8").catch(failedRead(cannotRead));
}

/** The parsed JSON of `file`; a failed read says `<cannotRead> (<why>)`, bad JSON names the file. */
export async function readJsonFile(file: string, cannotRead: string): Promise<unknown> {
  const text = await readUserFile(file, cannotRead);
  return parseJsonOrRefuse(text, (why) => `${file}: not valid JSON (${why})`);
}

/** The parsed JSON of `text`; text that is not JSON is a UserError saying `refusal(<why>)`. */
export function parseJsonOrRefuse(text: string, refusal: (why: string) => string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UserError(refusal((err as Error).message));
  }
}
