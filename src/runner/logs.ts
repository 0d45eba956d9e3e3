import { readFile } from "node:fs/promises";

/** The last `lines` non-empty lines of a log file ("" when it does not exist). */
export async function logTail(file: string, lines = 15): Promise<string> {
  const text = await readFile(file, "utf8").catch(() => "");
  return tailOf(text, lines);
}

/** Pure: the last `lines` non-empty lines of a text. */
export function tailOf(text: string, lines: number): string {
  return text
    .split("\n")
    .map((l) => l.trimEnd())
    .filter((l) => l !== "")
    .slice(-lines)
    .join("\n");
}
