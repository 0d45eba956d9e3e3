import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { RESULTS_FILE } from "../results/io.js";
import { Results } from "../results/schema.js";
import { UserError } from "../util/errors.js";

/**
 * Writes a file atomically (a temporary file renamed over it), one write at a time, so that the
 * file on disk is always complete, whenever the run stops: results.json (ResultsFile), a counted
 * run's instructions.json and its instructions.md.
 */
export class AtomicFile<T> {
  readonly file: string;
  private queue: Promise<void> = Promise.resolve();
  private closed = false;

  /** `render` throws on a value that must not be written, else returns the file's text. */
  constructor(
    readonly dir: string,
    name: string,
    private readonly render: (value: T) => string,
  ) {
    this.file = path.join(dir, name);
  }

  /**
   * Queues a write of `value` (rendered first: a bug must not produce an invalid file). A
   * failed write rejects this save only: the next one tries again. After a `final` one (when
   * interrupted), later saves are ignored, and the final one waits for those queued before it.
   */
  save(value: T, final = false): Promise<void> {
    if (this.closed) return this.queue;
    this.closed = final;
    const text = this.render(value);
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

/** A document and its file, as a measuring session saves it (after each slot, and once at its end). */
export interface SavedDocument {
  save(final: boolean): Promise<void>;
}

/** `value` saved to `file`, each save writing it as it stands then. */
export function savedDocument<T>(file: AtomicFile<T>, value: T): SavedDocument {
  return { save: (final) => file.save(value, final) };
}

/** A JSON file: `validate` throws on a value that must not be written, else returns what to write. */
export class AtomicJsonFile<T> extends AtomicFile<T> {
  constructor(dir: string, name: string, validate: (value: T) => unknown) {
    super(dir, name, (value) => `${JSON.stringify(validate(value), null, 2)}\n`);
  }
}

/** results.json, validated against the results schema (and written as it parses). */
export class ResultsFile extends AtomicJsonFile<Results> {
  constructor(dir: string) {
    super(dir, RESULTS_FILE, (results) => Results.parse(results));
  }
}
