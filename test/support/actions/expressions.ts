/**
 * GitHub Actions expressions (`${{ ... }}`) evaluated as the runner evaluates them, so that a
 * workflow's decisions (a job's `if:`, an `env:` value, a `with:` input, a concurrency group) are
 * tested for each kind of event instead of read as text. What GitHub documents:
 *
 * - literals null, true, false, numbers and 'strings' ('' inside is one quote);
 * - property access `a.b`, `a['b']`, `a[0]`, the filter `a.*.b`; a property of null is null;
 *   names are case-insensitive and may hold `-`;
 * - `!`, `<`, `<=`, `>`, `>=`, `==`, `!=`, `&&`, `||` (in that order of precedence); `&&` and
 *   `||` give one of their operands, not a boolean;
 * - `==` compares strings ignoring case, and values of different types as numbers;
 * - false, 0, -0, NaN, '' and null are falsy;
 * - the functions contains, startsWith, endsWith, format, join, toJSON, fromJSON, and the status
 *   functions success, always, cancelled, failure (from `status`).
 */

export type Value = null | boolean | number | string | Value[] | { [key: string]: Value };

export interface Context {
  [name: string]: Value | undefined;
}

export interface Status {
  cancelled?: boolean;
  failure?: boolean;
}

type Token =
  | { kind: "number"; value: number }
  | { kind: "string"; value: string }
  | { kind: "name"; value: string }
  | { kind: "op"; value: string };

const OPERATORS = ["&&", "||", "==", "!=", "<=", ">=", "<", ">", "!", "(", ")", "[", "]", ".", ",", "*"];

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    const space = /^\s+/.exec(rest);
    const number = /^(0x[0-9a-f]+|[0-9]+(\.[0-9]+)?(e[+-]?[0-9]+)?)/i.exec(rest);
    const name = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(rest);
    const op = OPERATORS.find((o) => rest.startsWith(o));
    if (space) i += space[0].length;
    else if (rest.startsWith("'")) {
      const m = /^'((?:[^']|'')*)'/.exec(rest);
      if (!m) throw new Error(`unterminated string in: ${text}`);
      tokens.push({ kind: "string", value: m[1]!.replace(/''/g, "'") });
      i += m[0].length;
    } else if (number && !(tokens.at(-1)?.value === "." && tokens.at(-1)?.kind === "op")) {
      tokens.push({ kind: "number", value: Number(number[0]) });
      i += number[0].length;
    } else if (name) {
      tokens.push({ kind: "name", value: name[0] });
      i += name[0].length;
    } else if (op) {
      tokens.push({ kind: "op", value: op });
      i += op.length;
    } else throw new Error(`unexpected '${rest[0]}' in: ${text}`);
  }
  return tokens;
}

const isObject = (v: Value): v is { [key: string]: Value } =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A property by name, ignoring case as GitHub does; null when there is none. */
function property(of: Value, name: string): Value {
  if (Array.isArray(of)) return /^\d+$/.test(name) ? (of[Number(name)] ?? null) : null;
  if (!isObject(of)) return null;
  const key = Object.keys(of).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? null : (of[key] ?? null);
}

function truthy(v: Value): boolean {
  return !(v === null || v === false || v === "" || (typeof v === "number" && (v === 0 || Number.isNaN(v))));
}

function toNumber(v: Value): number {
  if (v === null) return 0;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "number") return v;
  if (typeof v === "string") return v.trim() === "" ? 0 : Number(v);
  return NaN;
}

function equal(a: Value, b: Value): boolean {
  if (typeof a === "string" && typeof b === "string") return a.toLowerCase() === b.toLowerCase();
  if (typeof a === typeof b && (typeof a === "object" || typeof a === "boolean")) return a === b;
  if (typeof a === "object" && a !== null) return false;
  if (typeof b === "object" && b !== null) return false;
  return toNumber(a) === toNumber(b);
}

/** A value as text, the way `format` and interpolation write it. */
export function asText(v: Value): string {
  if (v === null) return "";
  if (typeof v === "string") return v;
  if (typeof v === "boolean" || typeof v === "number") return String(v);
  return JSON.stringify(v, null, 2);
}

function callFunction(name: string, args: Value[], status: Status): Value {
  const [a = null, b = null] = args;
  switch (name.toLowerCase()) {
    case "contains":
      if (Array.isArray(a)) return a.some((x) => equal(x, b));
      return asText(a).toLowerCase().includes(asText(b).toLowerCase());
    case "startswith":
      return asText(a).toLowerCase().startsWith(asText(b).toLowerCase());
    case "endswith":
      return asText(a).toLowerCase().endsWith(asText(b).toLowerCase());
    case "format":
      return asText(a).replace(/\{(\d+)\}/g, (_, i: string) => asText(args[Number(i) + 1] ?? null));
    case "join":
      return Array.isArray(a) ? a.map(asText).join(b === null ? "," : asText(b)) : asText(a);
    case "tojson":
      return JSON.stringify(a, null, 2);
    case "fromjson":
      return JSON.parse(asText(a)) as Value;
    case "success":
      return !status.cancelled && !status.failure;
    case "always":
      return true;
    case "cancelled":
      return status.cancelled === true;
    case "failure":
      return status.failure === true;
    default:
      throw new Error(`unknown function ${name}()`);
  }
}

/** A recursive-descent parser that evaluates as it goes (both sides always parsed). */
class Evaluator {
  private i = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly context: Context,
    private readonly status: Status,
  ) {}

  run(): Value {
    const value = this.or();
    if (this.i < this.tokens.length) throw new Error(`unexpected ${this.peek()?.value}`);
    return value;
  }

  private peek(): Token | undefined {
    return this.tokens[this.i];
  }

  private take(op: string): boolean {
    const t = this.peek();
    if (t?.kind === "op" && t.value === op) return (void this.i++, true);
    return false;
  }

  private expect(op: string): void {
    if (!this.take(op)) throw new Error(`expected '${op}', got ${String(this.peek()?.value)}`);
  }

  private or(): Value {
    let left = this.and();
    while (this.take("||")) {
      const right = this.and();
      left = truthy(left) ? left : right;
    }
    return left;
  }

  private and(): Value {
    let left = this.equality();
    while (this.take("&&")) {
      const right = this.equality();
      left = truthy(left) ? right : left;
    }
    return left;
  }

  private equality(): Value {
    let left = this.comparison();
    for (;;) {
      if (this.take("==")) left = equal(left, this.comparison());
      else if (this.take("!=")) left = !equal(left, this.comparison());
      else return left;
    }
  }

  private comparison(): Value {
    let left = this.unary();
    for (;;) {
      const op = ["<=", ">=", "<", ">"].find((o) => this.take(o));
      if (op === undefined) return left;
      const right = this.unary();
      const [x, y] =
        typeof left === "string" && typeof right === "string"
          ? [left.toLowerCase(), right.toLowerCase()]
          : [toNumber(left), toNumber(right)];
      left = op === "<" ? x < y : op === "<=" ? x <= y : op === ">" ? x > y : x >= y;
    }
  }

  private unary(): Value {
    if (this.take("!")) return !truthy(this.unary());
    return this.postfix(this.primary());
  }

  private postfix(start: Value): Value {
    let value = start;
    for (;;) {
      if (this.take(".")) {
        if (this.take("*"))
          value = Array.isArray(value) ? value : isObject(value) ? Object.values(value) : [];
        else {
          const name = this.tokens[this.i++];
          if (name?.kind !== "name") throw new Error("expected a property name after '.'");
          value =
            Array.isArray(value) && !/^\d+$/.test(name.value)
              ? value.map((v) => property(v, name.value))
              : property(value, name.value);
        }
      } else if (this.take("[")) {
        const key = this.or();
        this.expect("]");
        value = property(value, asText(key));
      } else return value;
    }
  }

  private primary(): Value {
    const t = this.tokens[this.i++];
    if (t === undefined) throw new Error("unexpected end of expression");
    if (t.kind === "number" || t.kind === "string") return t.value;
    if (t.kind === "op" && t.value === "(") {
      const v = this.or();
      this.expect(")");
      return v;
    }
    if (t.kind !== "name") throw new Error(`unexpected '${t.value}'`);
    if (t.value === "null") return null;
    if (t.value === "true" || t.value === "false") return t.value === "true";
    if (this.take("(")) {
      const args: Value[] = [];
      if (!this.take(")")) {
        do args.push(this.or());
        while (this.take(","));
        this.expect(")");
      }
      return callFunction(t.value, args, this.status);
    }
    const key = Object.keys(this.context).find((k) => k.toLowerCase() === t.value.toLowerCase());
    if (key === undefined) throw new Error(`unknown context '${t.value}'`);
    return this.context[key] ?? null;
  }
}

/** One expression, without its `${{ }}`. */
export function evaluate(expression: string, context: Context, status: Status = {}): Value {
  return new Evaluator(tokenize(expression), context, status).run();
}

/**
 * A workflow value as the runner reads it: text with `${{ }}` parts filled in (each part as text),
 * or, when the whole value is one `${{ }}`, that expression's value.
 */
export function interpolate(text: string, context: Context, status: Status = {}): Value {
  const whole = /^\s*\$\{\{([\s\S]*)\}\}\s*$/.exec(text);
  if (whole && !whole[1]!.includes("}}")) return evaluate(whole[1]!, context, status);
  return text.replace(/\$\{\{([\s\S]*?)\}\}/g, (_, e: string) => asText(evaluate(e, context, status)));
}

/**
 * A job's or step's `if:` as GitHub evaluates it: with or without `${{ }}`, and, when it calls no
 * status function, as `success() && (...)`.
 */
export function condition(text: string | undefined, context: Context, status: Status = {}): boolean {
  if (text === undefined) return callFunction("success", [], status) === true;
  const inner = /^\s*\$\{\{([\s\S]*)\}\}\s*$/.exec(text)?.[1] ?? text;
  const value = truthy(evaluate(inner, context, status));
  const callsStatus = /\b(success|always|cancelled|failure)\s*\(/i.test(inner);
  return callsStatus ? value : value && callFunction("success", [], status) === true;
}
