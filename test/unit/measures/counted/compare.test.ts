import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readInstructions } from "../../../../src/measures/counted/compare.js";
import { UserError } from "../../../../src/util/errors.js";

// A counted run's instructions.json is read as results.json is: every problem names the file.
describe("readInstructions", () => {
  it("a folder without instructions.json: the file and why it cannot be read", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "pb-counted-"));
    const err = await readInstructions(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toMatch(
      new RegExp(`^${path.join(dir, "instructions.json")}: cannot read counted results \\(ENOENT`),
    );
  });

  it("a file that is not JSON, or a folder named .json, names the file", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "pb-counted-"));
    await writeFile(path.join(dir, "instructions.json"), "{ not json");
    await expect(readInstructions(dir)).rejects.toThrow(/instructions\.json: not valid JSON/);
    await mkdir(path.join(dir, "folder.json"));
    await expect(readInstructions(path.join(dir, "folder.json"))).rejects.toThrow(/folder\.json: not a file/);
  });

  it("a schema problem names the file and the field", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "pb-counted-"));
    const file = path.join(dir, "instructions.json");
    await writeFile(file, JSON.stringify({ schemaVersion: 1, measure: "instructions", cells: [{}] }));
    const err = await readInstructions(file).catch((e: unknown) => e);
    expect((err as Error).message).toContain(file);
    expect((err as Error).message).toMatch(/cells\[0\]\.id/);
  });
});
