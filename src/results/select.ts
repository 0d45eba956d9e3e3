import { UserError } from "../util/errors.js";
import { cellKey, type Results } from "./schema.js";
import { variantNames } from "./variants.js";

/**
 * One variant of a variant run as a run of one set: its cells, ids without the `@variant`
 * (the history and the tables of one set know no variants). A run without variants is returned
 * as it is. The errors name `flag`. Pure.
 */
export function selectVariant(results: Results, name: string | undefined, flag = "--variant"): Results {
  const names = variantNames(results);
  if (names.length === 0) return results;
  if (name === undefined) {
    throw new UserError(`${flag}: this run holds the variants ${names.join(", ")}: name the one to use`);
  }
  if (!names.includes(name)) {
    throw new UserError(`${flag}: no variant '${name}' in this run (its variants: ${names.join(", ")})`);
  }
  const cells = results.cells
    .filter((c) => c.variant === name)
    .map(({ variant: _variant, ...cell }) => ({ ...cell, id: cellKey(cell) }));
  return { ...results, cells };
}
