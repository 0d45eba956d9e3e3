/**
 * Objects with optional fields: a field that is not set is absent, never present as undefined
 * (results.json, `in` checks and spreads over defaults all tell the two apart).
 */

/** `object` without its undefined fields. */
export function withoutUndefined<T extends object>(object: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return pickDefined(object, Object.keys(object) as Array<keyof T>);
}

/** The fields of `object` named in `keys` (in that order) that are set. */
export function pickDefined<T extends object, K extends keyof T>(
  object: T,
  keys: readonly K[],
): { [P in K]?: Exclude<T[P], undefined> } {
  const out: { [P in K]?: Exclude<T[P], undefined> } = {};
  for (const key of keys) {
    const value = object[key];
    if (value !== undefined) out[key] = value as Exclude<T[K], undefined>;
  }
  return out;
}
