import type * as engines from "../../engines/index.js";
import type { ManifestDirs } from "../../manifests/load.js";
import type { Results } from "../../results/schema.js";
import type { CellContext } from "../../runner/context.js";
import type { Runtime } from "../../runner/runtime.js";
import type { noiseSnapshot } from "./noise.js";
import type { Progress, ProgressStream } from "./progress.js";

/**
 * What a wall-clock run's blocks share, each file of the kind reading it here: the run's
 * dependencies and a block's context (no import of the files using them).
 */

/** What the runner needs from the engines (src/engines); tests may pass their own. */
export type EngineApi = Pick<typeof engines, "getEngine" | "classifyRepetition" | "probe">;

export interface RunDeps {
  engines: EngineApi;
  /** Where the proxies run; default: the one settings.runtime names. */
  runtime?: Runtime;
  stdout?: ProgressStream;
  stderr?: ProgressStream;
  cores?: number;
  /** Built-in manifest folders (tests). */
  builtinDirs?: Pick<ManifestDirs, "builtinProxiesDir" | "builtinScenariosDir">;
  /** Save and exit 130 on SIGINT/SIGTERM (the CLI); default true. */
  handleSignals?: boolean;
  /** Called around every measured attempt (benchmarks put a neighbour's load there). */
  onMeasure?: (event: { cellId: string; variant?: string; round: number; phase: "start" | "end" }) => void;
  /** Renders the final table; absent: no table. */
  renderReport?: (results: Results) => string;
  /** Reads the pinned cores' counters before and after a repetition; default: /proc (noiseSnapshot). */
  noiseSnapshot?: typeof noiseSnapshot;
}

/** What every block of a run shares. */
export interface BlockContext extends CellContext {
  deps: RunDeps;
  upstreamBinary: string;
  results: Results;
  progress: Progress;
  save: () => Promise<void>;
}
