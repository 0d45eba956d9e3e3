import { UserError } from "../util/errors.js";

/** What picking variants reads of a run: wall-clock (results.json) or counted (instructions.json). */
export interface VariantRun {
  runId: string;
  settings: { variants?: ReadonlyArray<{ name: string }> | undefined };
  cells: ReadonlyArray<{ variant?: string | undefined }>;
}

/**
 * The variants a paired comparison takes: the names asked for, else base/head, else the first
 * two. A run without two is an error naming `from`, where it was read (else its run id).
 */
export function pickVariants(
  results: VariantRun,
  asked: { base?: string; head?: string; from?: string },
): [string, string] {
  const names = variantNames(results);
  if (names.length < 2) {
    throw new UserError(
      `${asked.from ?? results.runId}: this run holds ${names.length === 0 ? "no variants" : `one variant (${names.join("")})`}; compare two runs with 'proxybench compare BASE HEAD', or run with --variant base=DIR --variant head=DIR`,
    );
  }
  const pick = (flag: string, name: string | undefined, preferred: string, fallback: string) => {
    if (name !== undefined && !names.includes(name)) {
      throw new UserError(`${flag}: no variant '${name}' in this run (its variants: ${names.join(", ")})`);
    }
    return name ?? (names.includes(preferred) ? preferred : fallback);
  };
  const base = pick("--base", asked.base, "base", names[0]!);
  const head = pick("--head", asked.head, "head", names.find((n) => n !== base) ?? names[1]!);
  if (base === head) throw new UserError(`--base and --head name the same variant '${base}'`);
  return [base, head];
}

export function variantNames(results: VariantRun): string[] {
  const recorded = results.settings.variants?.map((v) => v.name) ?? [];
  const seen = results.cells.map((c) => c.variant).filter((v): v is string => v !== undefined);
  return [...new Set([...recorded, ...seen])];
}
