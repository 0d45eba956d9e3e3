import { mkdir, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { RESULTS_FILE } from "../results/io.js";
import { Results } from "../results/schema.js";

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

  /** Queues a write of `results` (validated first: a bug must not produce an invalid file). */
  save(results: Results): Promise<void> {
    if (this.closed) return this.queue;
    const text = `${JSON.stringify(Results.parse(results), null, 2)}\n`;
    this.queue = this.queue.then(() => this.write(text));
    return this.queue;
  }

  /** The last write: later saves are ignored (used when interrupted). */
  saveFinal(results: Results): Promise<void> {
    const done = this.save(results);
    this.closed = true;
    return done;
  }

  private async write(text: string): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const tmp = `${this.file}.tmp-${process.pid}`;
    await writeFile(tmp, text);
    await rename(tmp, this.file);
  }
}
