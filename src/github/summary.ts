import { appendFile } from "node:fs/promises";
import { cutToFit } from "./body.js";

/** GitHub shows at most 1 MiB of summary per step. */
const SUMMARY_LIMIT_BYTES = 1024 * 1024;

/**
 * The text appended to the job summary: cut on a line boundary to fit, blocks the cut left open
 * closed (a code fence, `<details>`), with a note (pure).
 */
export function summaryText(markdown: string, limitBytes = SUMMARY_LIMIT_BYTES): string {
  const text = markdown.endsWith("\n") ? markdown : `${markdown}\n`;
  if (Buffer.byteLength(text, "utf8") <= limitBytes) return text;
  const note =
    "\n> [!NOTE]\n> Cut to fit the job summary's size limit; the full report is in the run's artifacts.\n";
  const room = limitBytes - Buffer.byteLength(note, "utf8");
  return `${cutToFit(text, room, (t) => Buffer.byteLength(t, "utf8"))}${note}`;
}

/**
 * Appends markdown to the job summary when GITHUB_STEP_SUMMARY names a file (in a GitHub
 * Actions step); returns whether it did. The report action calls this too.
 */
export async function writeJobSummary(
  markdown: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean> {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return false;
  await appendFile(file, summaryText(markdown), "utf8");
  return true;
}
