import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { RESULTS_FILE } from "../results/io.js";
import { Results } from "../results/schema.js";
import { UserError } from "../util/errors.js";

/**
 * Writes a JSON file atomically (a temporary file renamed over it), one write at a time, so
 * that the file on disk is always complete and valid, whenever the run stops: results.json
 * (ResultsFile) and a counted run's instructions.json.
 */
export class AtomicJsonFile<T> {
  readonly file: string;
  private queue: Promise<void> = Promise.resolve();
  private closed = false;

  /** `validate` throws on a value that must not be written, else returns what to write. */
  constructor(
    readonly dir: string,
    name: string,
    private readonly validate: (value: T) => unknown,
  ) {
    this.file = path.join(dir, name);
  }

  /**
   * Queues a write of `value` (validated first: a bug must not produce an invalid file). A
   * failed write rejects this save only: the next one tries again. After a `final` one (when
   * interrupted), later saves are ignored.
   */
  save(value: T, final = false): Promise<void> {
    if (this.closed) return this.queue;
    this.closed = final;
    const text = `${JSON.stringify(this.validate(value), null, 2)}\n`;
    const written = this.queue.then(() => this.write(text));
    this.queue = written.catch(() => undefined);
    return written;
  }

  /**
   * The temporary file, then the rename: on any error (a full disk) the temporary file is
   * removed, the previous file stays as it was, and the error names the file.
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

/** results.json, validated against the results schema (and written as it parses). */
export class ResultsFile extends AtomicJsonFile<Results> {
  constructor(dir: string) {
    super(dir, RESULTS_FILE, (results) => Results.parse(results));
  }
}
