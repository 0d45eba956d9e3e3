import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../../src/util/paths.js";
import { tableAfter, tableCells, type MarkdownTable } from "../../support/docs/markdown.js";

// The defaults and types README.md and docs/actions.md give the inputs of the reusable workflows
// and the actions are the ones their files declare, and the base images docs/actions.md lists are
// the ones the Dockerfiles build from.

interface Input {
  type?: string;
  required?: boolean;
  default?: string | number | boolean;
}

const read = (file: string) => readFileSync(path.join(PROJECT_ROOT, file), "utf8");

/** The inputs a reusable workflow (`on.workflow_call.inputs`) or an action (`inputs`) declares. */
function declaredInputs(file: string): Record<string, Input> {
  const parsed = parseYaml(read(file)) as {
    on?: { workflow_call: { inputs: Record<string, Input> } };
    inputs?: Record<string, Input>;
  };
  return parsed.on?.workflow_call.inputs ?? parsed.inputs ?? {};
}

/** The one backticked literal a default cell (or part of one) is, else undefined (prose or empty). */
function literal(part: string): string | undefined {
  return /^`([^`]+)`$/.exec(part.trim())?.[1];
}

/**
 * What a table row says against its inputs: each backticked name of the first cell must be an
 * input; its default cell is `**required**`, one backticked literal per name (`5`, `0.05`), or
 * prose that tells what empty means (`the scenario's`, `(empty)`), for an input whose default is
 * empty; a type cell, where the table has one, is the input's type.
 */
function rowProblems(table: MarkdownTable, inputs: Record<string, Input>): string[] {
  const column = (name: string) => table.header.indexOf(name);
  const [defaults, types] = [column("default"), column("type")];
  return table.rows.flatMap(({ line, cells }) => {
    const names = [...cells[0]!.matchAll(/`([a-z0-9-]+)`/g)].map((m) => m[1]!);
    const cell = cells[defaults] ?? "";
    const parts = names.length > 1 && cell.includes("`, `") ? cell.split(/(?<=`), (?=`)/) : [cell];
    if (parts.length !== 1 && parts.length !== names.length)
      return [`:${line}: ${names.join(", ")}: ${parts.length} defaults for ${names.length} inputs`];
    return names.flatMap((name, i) => {
      const input = inputs[name];
      if (!input) return [`:${line}: ${name}: no such input`];
      const part = parts.length === 1 ? parts[0]! : parts[i]!;
      const declared = input.default === undefined ? "" : String(input.default);
      const problems: string[] = [];
      if (part === "**required**") {
        if (input.required !== true) problems.push(`${name}: documented required, declared not`);
      } else if ((literal(part) ?? "") !== declared) {
        problems.push(`${name}: documented default ${part || "(none)"}, declared '${declared}'`);
      }
      if (types >= 0 && cells[types] !== input.type)
        problems.push(`${name}: documented type ${cells[types]}, declared ${input.type}`);
      return problems.map((p) => `:${line}: ${p}`);
    });
  });
}

const inputTable = (header: string[]) => header[0] === "input" && header.includes("default");

/** Each table of inputs: the doc, the heading it follows, the file declaring the inputs. */
const TABLES: Array<[string, string, string]> = [
  ["README.md", "### Inputs of `bench.yml`", ".github/workflows/bench.yml"],
  ["docs/actions.md", "## `bench.yml`", ".github/workflows/bench.yml"],
  [
    "docs/actions.md",
    "## `bench-instructions.yml`: counted, on hosted runners",
    ".github/workflows/bench-instructions.yml",
  ],
  ["docs/actions.md", "## `action/` (composite)", "action/action.yml"],
  ["docs/actions.md", "## `report/` (node24)", "report/action.yml"],
];

describe("the documented inputs' defaults are the declared ones", () => {
  it.each(TABLES)("%s, %s: the inputs of %s", (doc, heading, file) => {
    const table = tableAfter(read(doc), heading, inputTable);
    expect(table.rows.length).toBeGreaterThan(5);
    expect(rowProblems(table, declaredInputs(file)).map((p) => `${doc}${p}`)).toEqual([]);
  });

  it("a row is read as its inputs, a default per name, prose as an empty default", () => {
    const inputs: Record<string, Input> = {
      a: { type: "string", default: "5" },
      b: { type: "number", default: 0.05 },
      c: { type: "string", default: "" },
      d: { type: "boolean", required: true },
    };
    const table = (row: string, header = "| input | type | default | what |") => ({
      header: tableCells(header),
      rows: [{ line: 9, cells: tableCells(row) }],
    });
    expect(rowProblems(table("| `a`, `b` | string | `5`, `0.05` | x |"), inputs)).toEqual([
      ":9: b: documented type string, declared number",
    ]);
    expect(rowProblems(table("| `c` | string | the scenario's | x |"), inputs)).toEqual([]);
    expect(rowProblems(table("| `c` | string | `dev/bench` | x |"), inputs)).toEqual([
      ":9: c: documented default `dev/bench`, declared ''",
    ]);
    expect(rowProblems(table("| `a` | `10` | x |", "| input | default | what |"), inputs)).toEqual([
      ":9: a: documented default `10`, declared '5'",
    ]);
    expect(
      rowProblems(table("| `d`, `e` | **required** | x |", "| input | default | what |"), inputs),
    ).toEqual([":9: e: no such input"]);
  });
});

/** bench.yml's jobs by the first word of their name, lower case (`plan`, `benchmark`...), each with its scopes. */
function benchJobScopes(): Map<string, Record<string, string>> {
  const jobs = (
    parseYaml(read(".github/workflows/bench.yml")) as {
      jobs: Record<string, { name: string; permissions?: Record<string, string> }>;
    }
  ).jobs;
  return new Map(Object.values(jobs).map((j) => [j.name.split(" ")[0]!.toLowerCase(), j.permissions ?? {}]));
}

/**
 * What a `| scope | job | why |` table says against bench.yml: each scope it gives a job, the job
 * has (`(none)`: the job has no scope at all), and each write scope of a job is in the table.
 */
function scopeProblems(table: MarkdownTable, jobs: Map<string, Record<string, string>>): string[] {
  const documented = new Set<string>();
  const problems = table.rows.flatMap(({ line, cells }) => {
    const scope = literal(cells[0]!) ?? cells[0]!;
    return cells[1]!.split(",").flatMap((cell) => {
      const job = cell.trim();
      const has = jobs.get(job);
      if (!has) return [`:${line}: ${job}: no such job`];
      documented.add(`${job} ${scope}`);
      const held = Object.entries(has).map(([k, v]) => `${k}: ${v}`);
      const ok = scope === "(none)" ? held.length === 0 : held.includes(scope);
      return ok ? [] : [`:${line}: ${job}: documented ${scope}, declared ${held.join(", ") || "none"}`];
    });
  });
  for (const [job, scopes] of jobs) {
    for (const [k, v] of Object.entries(scopes))
      if (v === "write" && !documented.has(`${job} ${k}: ${v}`))
        problems.push(`${job}: ${k}: write not in the table`);
  }
  return problems;
}

describe("the scopes README.md and docs/actions.md give bench.yml's jobs", () => {
  const scopeTable = (header: string[]) => header[0] === "scope" && header[1]?.startsWith("job") === true;
  it.each([
    ["README.md", "### Outputs and permissions"],
    ["docs/actions.md", "### Permissions a caller grants"],
  ])("%s: each is the job's, every write scope listed", (doc, heading) => {
    const table = tableAfter(read(doc), heading, scopeTable);
    expect(table.rows.length).toBeGreaterThanOrEqual(4);
    expect(scopeProblems(table, benchJobScopes()).map((p) => `${doc}${p}`)).toEqual([]);
  });
});

/** The images a Dockerfile builds from, digests dropped, in order. */
function baseImages(folder: string): string[] {
  return [...read(`${folder}/Dockerfile`).matchAll(/^FROM\s+(\S+)/gm)].map((m) =>
    m[1]!.replace(/@sha256:\w+$/, ""),
  );
}

describe("docs/actions.md's proxy images table", () => {
  const table = tableAfter(read("docs/actions.md"), "## Proxy images", (h) => h[0] === "image");
  const rows = table.rows.map(({ cells }) => ({
    folders: [...cells[0]!.matchAll(/`([\w/-]+)`/g)].map((m) => m[1]!),
    images: [...cells[1]!.matchAll(/`([^`\s]+:[^`\s]+)`/g)].map((m) => m[1]!),
  }));

  it("names each folder's base images, in the order its Dockerfile has them", () => {
    const problems = rows.flatMap(({ folders, images }) =>
      folders.flatMap((f) => {
        const declared = baseImages(f);
        return declared.join(" ") === images.join(" ")
          ? []
          : [`${f}: documented ${images.join(", ")}, FROM ${declared.join(", ")}`];
      }),
    );
    expect(rows.length).toBeGreaterThan(4);
    expect(problems).toEqual([]);
  });

  it("has a row for every proxy with a Dockerfile", () => {
    const withDockerfile = readdirSync(path.join(PROJECT_ROOT, "proxies")).filter((p) =>
      readdirSync(path.join(PROJECT_ROOT, "proxies", p)).includes("Dockerfile"),
    );
    const documented = rows.flatMap((r) => r.folders);
    expect(withDockerfile.map((p) => `proxies/${p}`).filter((f) => !documented.includes(f))).toEqual([]);
  });
});
