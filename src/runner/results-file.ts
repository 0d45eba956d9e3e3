import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { RESULTS_FILE } from "../results/io.js";
import { Results } from "../results/schema.js";
import { UserError } from "../util/errors.js";

/**
 * Writes results.json atomically (a temporary file renamed over it), one write at a time, so
 * that the file on disk is always complete and valid, whenever the run stops.
 */
export class ResultsFile {
  readonly file: string;
  private queue: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(readonly dir: string) {
    this.file = path.join(dir, RESULTS_FILE);
  }

  /**
   * Queues a write of `results` (validated first: a bug must not produce an invalid file). A
   * failed write rejects this save only: the next one tries again.
   */
  save(results: Results): Promise<void> {
    if (this.closed) return this.queue;
    const text = `${JSON.stringify(Results.parse(results), null, 2)}\n`;
    const written = this.queue.then(() => this.write(text));
    this.queue = written.catch(() => undefined);
    return written;
  }

  /** The last write: later saves are ignored (used when interrupted). */
  saveFinal(results: Results): Promise<void> {
    const done = this.save(results);
    this.closed = true;
    return done;
  }

  /**
   * The temporary file, then the rename: on any error (a full disk) the temporary file is
   * removed, the previous results.json stays as it was, and the error names the file.
   */
  private async write(text: string): Promise<void> {
    const tmp = `${this.file}.tmp-${process.pid}`;
    try {
      await mkdir(this.dir, { recursive: true });
      await writeFile(tmp, text);
      await rename(tmp, this.file);
    } catch (err) {
      await rm(tmp, { force: true }).catch(() => undefined);
      throw new UserError(
        `${this.file}: cannot write the results (${(err as Error).message}); the previous file, if any, is unchanged`,
        1,
      );
    }
  }
}
