/**
 * Reading callgrind's output format (https://valgrind.org/docs/manual/cl-format.html): the
 * events, the totals and, per function, its self and inclusive cost. Pure.
 *
 * Functions are keyed by name with callgrind's recursion suffix (`fn'2`) removed, so the
 * contexts of one function add up. Inclusive cost is a function's self cost plus the cost of
 * its calls to other functions (a call to itself, directly recursive, is not counted twice);
 * mutual recursion (a -> b -> a) can count a call twice, as callgrind_annotate does.
 */

interface FunctionCost {
  name: string;
  /** Object (binary or library) the function is in, its base name. */
  object?: string;
  self: number[];
  inclusive: number[];
}

export interface CallgrindProfile {
  events: string[];
  totals: number[];
  functions: FunctionCost[];
}

/** Kcachegrind's cycle estimate: Ir + 10 x L1 misses + 100 x last-level misses. */
export const CYCLE_WEIGHTS = { l1Miss: 10, llMiss: 100 } as const;

/** A cost of the profile by event name (0 when the event was not recorded). */
export function eventCost(events: readonly string[], costs: readonly number[], event: string): number {
  const i = events.indexOf(event);
  return i < 0 ? 0 : (costs[i] ?? 0);
}

/** The cycle estimate of a cost, or undefined without the cache simulation's events. */
export function cycleEstimate(events: readonly string[], costs: readonly number[]): number | undefined {
  if (!events.includes("I1mr") || !events.includes("ILmr")) return undefined;
  const e = (name: string) => eventCost(events, costs, name);
  const l1 = e("I1mr") + e("D1mr") + e("D1mw");
  const ll = e("ILmr") + e("DLmr") + e("DLmw");
  return e("Ir") + CYCLE_WEIGHTS.l1Miss * l1 + CYCLE_WEIGHTS.llMiss * ll;
}

interface ParseState {
  names: Record<string, Map<string, string>>;
  fn?: string;
  ob?: string;
  cfn?: string;
  /** The next cost line is a call's inclusive cost. */
  inCall: boolean;
  positions: number;
  events: string[];
  totals?: number[];
  self: Map<string, number[]>;
  calls: Map<string, number[]>;
  objects: Map<string, string>;
}

/** `fn'2` -> `fn`. */
export function baseName(name: string): string {
  return name.replace(/'\d+$/, "");
}

/** `(12) name` or `(12)` or `name`, resolved with callgrind's name compression. */
function resolveName(state: ParseState, kind: string, value: string): string {
  const table = (state.names[kind] ??= new Map());
  const m = /^\((\d+)\)(?:\s+(.*))?$/.exec(value.trim());
  if (!m) return value.trim();
  const id = m[1] ?? "";
  if (m[2] !== undefined) table.set(id, m[2]);
  return table.get(id) ?? `(${id})`;
}

function addInto(map: Map<string, number[]>, key: string, costs: number[]): void {
  const sum = map.get(key) ?? [];
  costs.forEach((c, i) => (sum[i] = (sum[i] ?? 0) + c));
  map.set(key, sum);
}

/** Cost columns of a cost line (positions first; missing trailing costs are 0). */
function costsOf(state: ParseState, line: string): number[] {
  const parts = line.trim().split(/\s+/).slice(state.positions);
  return state.events.map((_, i) => Number(parts[i] ?? 0) || 0);
}

/** The kind of name each specification key carries (its own compression table): file, function, object. */
const COMPRESSED: Record<string, string> = Object.fromEntries(
  Object.entries({ file: ["fl", "fi", "fe", "cfi", "cfl"], fn: ["fn", "cfn"], ob: ["ob", "cob"] }).flatMap(
    ([kind, keys]) => keys.map((key) => [key, kind]),
  ),
);

function headerLine(state: ParseState, key: string, value: string): void {
  const fields = value.trim().split(/\s+/);
  if (key === "events") state.events = fields;
  else if (key === "positions") state.positions = fields.length;
  else if (key === "totals") state.totals = fields.map(Number);
}

function specLine(state: ParseState, key: string, value: string): void {
  const kind = COMPRESSED[key];
  if (kind === undefined) return;
  const name = resolveName(state, kind, value);
  if (key === "ob") state.ob = name.split("/").pop() ?? name;
  if (key === "fn") {
    state.fn = baseName(name);
    if (state.ob !== undefined && !state.objects.has(state.fn)) state.objects.set(state.fn, state.ob);
  }
  if (key === "cfn") state.cfn = baseName(name);
}

function costLine(state: ParseState, line: string): void {
  if (state.fn === undefined) return;
  const costs = costsOf(state, line);
  if (!state.inCall) {
    addInto(state.self, state.fn, costs);
    return;
  }
  state.inCall = false;
  if (state.cfn !== undefined && state.cfn !== state.fn) addInto(state.calls, state.fn, costs);
}

/** Parses one callgrind.out file (one part, e.g. the file `callgrind_control -d` wrote). */
export function parseCallgrind(text: string): CallgrindProfile {
  const state: ParseState = {
    names: {},
    inCall: false,
    positions: 1,
    events: [],
    self: new Map(),
    calls: new Map(),
    objects: new Map(),
  };
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const kv = /^([a-z]+)[:=](.*)$/.exec(line);
    if (kv) {
      const [, key = "", value = ""] = kv;
      if (line[key.length] === ":") headerLine(state, key, value);
      else if (key === "calls") state.inCall = true;
      else specLine(state, key, value);
      continue;
    }
    if (/^[0-9+\-*]/.test(line)) costLine(state, line);
  }
  if (state.events.length === 0) throw new Error("not a callgrind profile: no 'events:' line");
  return { events: state.events, totals: totals(state), functions: functions(state) };
}

function totals(state: ParseState): number[] {
  if (state.totals) return state.totals;
  const sum = state.events.map(() => 0);
  for (const costs of state.self.values()) costs.forEach((c, i) => (sum[i] = (sum[i] ?? 0) + c));
  return sum;
}

function functions(state: ParseState): FunctionCost[] {
  const names = new Set([...state.self.keys(), ...state.calls.keys()]);
  return [...names].map((name) => {
    const self = state.events.map((_, i) => state.self.get(name)?.[i] ?? 0);
    const called = state.calls.get(name);
    const inclusive = self.map((c, i) => c + (called?.[i] ?? 0));
    const object = state.objects.get(name);
    return { name, ...(object === undefined ? {} : { object }), self, inclusive };
  });
}
