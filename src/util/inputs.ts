import { UserError } from "./errors.js";

/**
 * Checks of text a user gives, shared by the CLI and the report action; `name` is how the
 * caller names the input in errors (`--threshold`, `input 'threshold'`).
 */

/** What a number input must be, and how errors say it. */
export interface NumberRule {
  ok: (x: number) => boolean;
  what: string;
}

export const PERCENTAGE: NumberRule = { ok: (x) => x >= 0, what: "a percentage >= 0" };
export const NON_NEGATIVE: NumberRule = { ok: (x) => x >= 0, what: "a number >= 0" };
/** A chance such as alpha: strictly between 0 and 1. */
export const PROBABILITY: NumberRule = { ok: (x) => x > 0 && x < 1, what: "a number between 0 and 1" };

export function numberInput(name: string, text: string, rule: NumberRule): number {
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value) || !rule.ok(value)) {
    throw new UserError(`${name}: expected ${rule.what}, got '${text}'`);
  }
  return value;
}

/** `numberInput`, or `fallback` when the input is not given. */
export function optionalNumberInput(
  name: string,
  text: string | undefined,
  fallback: number,
  rule: NumberRule,
): number {
  return text === undefined ? fallback : numberInput(name, text, rule);
}

/** One of `choices`. */
export function choiceInput<T extends string>(name: string, text: string, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(text)) {
    throw new UserError(`${name}: expected one of ${choices.join(", ")}, got '${text}'`);
  }
  return text as T;
}
