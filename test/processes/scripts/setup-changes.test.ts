import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../../src/util/paths.js";
import { runCommand } from "../../../src/util/processes.js";

// The publishing job's setup: Otava alone, into the .tools/venv that --for-tests filled.
describe("scripts/setup.sh --changes", () => {
  it("checks the pinned Otava by finding a step, installs nothing else, and says it is ready", async () => {
    const { code, output } = await runCommand("bash", ["scripts/setup.sh", "--changes"], {
      cwd: PROJECT_ROOT,
      timeoutMs: 60_000,
    });
    expect(code, output).toBe(0);
    expect(output).toMatch(/^setup: ready \(Apache Otava \d+\.\d+\.\d+ in \.tools\/venv\)\n$/);
  });
});
