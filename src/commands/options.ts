import { InvalidArgumentError } from "commander";

/** Strict parsers for commander options; their errors name the value (commander adds the flag). */

export function parseCsv(value: string): string[] {
  const items = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (items.length === 0) throw new InvalidArgumentError("expected a comma-separated list of names");
  return items;
}

export function parsePositiveInt(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) {
    throw new InvalidArgumentError(`'${value}' is not a positive whole number`);
  }
  return Number(value);
}

export function parseSeconds(allowZero: boolean) {
  return (value: string): number => {
    const n = Number(value.trim().replace(/s$/, ""));
    if (value.trim() === "" || !Number.isFinite(n) || n < 0 || (!allowZero && n === 0)) {
      throw new InvalidArgumentError(`'${value}' is not a number of seconds${allowZero ? "" : " above 0"}`);
    }
    return n;
  };
}

export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function parsePositiveNumber(value: string): number {
  const n = Number(value.trim());
  if (value.trim() === "" || !Number.isFinite(n) || n <= 0) {
    throw new InvalidArgumentError(`'${value}' is not a number above 0`);
  }
  return n;
}

export function parseNonNegativeInt(value: string): number {
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError(`'${value}' is not a whole number >= 0`);
  return Number(value);
}

export function parseNonNegativeNumber(value: string): number {
  const n = Number(value.trim());
  if (value.trim() === "" || !Number.isFinite(n) || n < 0) {
    throw new InvalidArgumentError(`'${value}' is not a number >= 0`);
  }
  return n;
}
