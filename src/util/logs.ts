import { open, readFile } from "node:fs/promises";

/** How much of a log's end `logTail` reads: logs can be large (k6 logs a warning per refused request). */
const TAIL_BYTES = 64 * 1024;

/** The last `lines` non-empty lines of a log file, for error messages ("" when it cannot be read). */
export async function logTail(file: string, lines = 15): Promise<string> {
  let text: string;
  try {
    const handle = await open(file, "r");
    try {
      const { size } = await handle.stat();
      const length = Math.min(size, TAIL_BYTES);
      const buffer = Buffer.alloc(length);
      await handle.read(buffer, 0, length, size - length);
      text = buffer.toString("utf8");
      // read from inside the file: its first line is cut
      if (length < size) text = text.slice(text.indexOf("\n") + 1);
    } finally {
      await handle.close();
    }
  } catch {
    return "";
  }
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

/** What a log file received after `offset` bytes ("" when it cannot be read): a resumed run appends to its logs. */
export async function logFrom(file: string, offset: number): Promise<string> {
  const data = await readFile(file).catch(() => Buffer.alloc(0));
  return data.subarray(offset).toString("utf8");
}
