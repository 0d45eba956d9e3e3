import path from "node:path";
import { z } from "zod";
import { execWithInput } from "../environment/exec.js";
import { ChangePoint } from "../publish/change-points.js";
import { UserError } from "../util/errors.js";
import { PROJECT_ROOT } from "../util/paths.js";

/**
 * Apache Otava's change points of series of numbers: scripts/otava-changes.py run by the Python
 * of .tools/venv, where `npm run setup -- --changes` (or --for-tests) installs the pinned Otava.
 * Its E-divisive means splits each series in windows and keeps a split whose t-test p-value is
 * below `maxPValue` and whose relative change reaches `minMagnitude` (Hunter's split and merge).
 */

const OTAVA_PYTHON = path.join(PROJECT_ROOT, ".tools", "venv", "bin", "python");
const OTAVA_SCRIPT = path.join(PROJECT_ROOT, "scripts", "otava-changes.py");
const INSTALL_HINT = "run `npm run setup -- --changes` (installs the pinned Apache Otava into .tools/venv)";
/** Otava takes about a second per 100 series of 200 points on one core. */
const OTAVA_TIMEOUT_MS = 10 * 60_000;
/** The script's exit code when Otava does not import. */
const NOT_INSTALLED = 3;

export interface OtavaOptions {
  maxPValue: number;
  /** Smallest relative change kept (0.03: 3%). */
  minMagnitude: number;
  /** Points per window of the split step; absent: Otava's default. */
  windowLen?: number;
}

/** A change as Otava gives it: where it is and its size, the fields a change point shares with it. */
const OtavaChange = ChangePoint.pick({ index: true, meanBefore: true, meanAfter: true, pValue: true });
export type OtavaChange = z.infer<typeof OtavaChange>;

const OtavaAnswer = z.object({
  otava: z.string(),
  windowLen: z.number(),
  series: z.array(z.object({ changes: z.array(OtavaChange) })),
});

/** The change points of each series, in the order given. */
export async function otavaChangePoints(
  series: readonly (readonly number[])[],
  options: OtavaOptions,
): Promise<OtavaChange[][]> {
  if (series.length === 0) return [];
  const request = { ...options, series: series.map((values, id) => ({ id, values })) };
  const { code, stdout, stderr } = await execWithInput(OTAVA_PYTHON, [OTAVA_SCRIPT], {
    input: JSON.stringify(request),
    timeoutMs: OTAVA_TIMEOUT_MS,
  });
  if (code === NOT_INSTALLED || (code === null && /ENOENT/.test(stderr))) {
    throw new UserError(`Apache Otava is not installed in .tools/venv: ${INSTALL_HINT}`);
  }
  if (code !== 0) {
    const said = stderr.trim().split("\n").slice(-5).join("\n");
    throw new UserError(`Apache Otava failed (${code === null ? "killed" : `exit ${code}`}): ${said}`);
  }
  return answerOf(stdout, series.length);
}

function answerOf(stdout: string, count: number): OtavaChange[][] {
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    // Not JSON: the schema refuses the undefined left in `json`.
  }
  const answer = OtavaAnswer.safeParse(json);
  if (!answer.success || answer.data.series.length !== count) {
    throw new UserError(
      `Apache Otava answered something other than one list of change points per series: ${stdout.slice(0, 200)}`,
    );
  }
  return answer.data.series.map((s) => s.changes);
}
