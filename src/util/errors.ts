import type { z } from "zod";

/**
 * An error the user can fix: bad input, a missing tool, a port in use. The CLI prints its
 * message alone (no stack) and exits with `exitCode`.
 */
export class UserError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
    this.name = "UserError";
  }
}

/** Path of an issue as `a.b[2].c`, the way users read a field in YAML or JSON. */
export function issuePath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out || "(root)";
}

/**
 * One line per schema problem, each naming the file and the field (and the line, when the
 * caller can map a field to one, as the YAML manifest loader does).
 */
export function formatSchemaError(
  file: string,
  error: z.ZodError,
  lineOf?: (path: readonly PropertyKey[]) => number | undefined,
): string {
  const lines = error.issues.map((issue) => {
    const line = lineOf?.(issue.path);
    const where = line === undefined ? file : `${file}:${line}`;
    return `${where}: ${issuePath(issue.path)}: ${issue.message}`;
  });
  return lines.join("\n");
}

/**
 * `value` as `schema` reads it; a mismatch is a UserError of formatSchemaError's lines naming
 * `file`, then `summary` on a line of its own when given.
 */
export function checkedBySchema<S extends z.ZodType>(
  schema: S,
  value: unknown,
  file: string,
  summary?: string,
): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const lines = formatSchemaError(file, parsed.error);
  throw new UserError(summary === undefined ? lines : `${lines}\n${summary}`);
}
