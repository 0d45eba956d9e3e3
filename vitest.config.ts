import { defineConfig } from "vitest/config";

/**
 * Three projects, one folder each: a test's project is the first folder under test/, and below
 * it test/ mirrors src/ (the test of src/report/markdown.ts is test/unit/report/markdown.test.ts).
 * - test/unit/: pure tests (no process, port or browser), run in parallel; `npm run test:unit`.
 *   Files share a worker's modules (isolate: false; a third of the time): a pure test leaves no
 *   state. The other projects keep isolation: engines cache where they found their tool, per process.
 * - test/processes/: real processes that time nothing (git, Chromium, the GitHub API server, the
 *   bundled action, `k6 inspect`, the CLI's list and doctor), run in parallel beside unit. Counted
 *   runs (`proxybench count`, nginx and HAProxy under callgrind) are here too: they
 *   count instructions, which the rest of the suite on the same cores must not move, and running
 *   them beside it checks that claim of the deterministic mode on every `npm test`.
 * - test/load/: load against real proxies (k6, wrk, vegeta, ab, h2load through nginx, haproxy, the
 *   upstream), timed on the machine's few pinned cores, one file at a time and after the other
 *   two, so that nothing measures anything else.
 * Helpers shared by tests are in test/support/<area>/, data in test/fixtures/<area>/; a project's
 * folder holds only its *.test.ts files. `node scripts/check-test-projects.js` (in `npm run lint`)
 * fails on a test file in no project, in two, or in a project other than its folder's.
 */
const only = (project: "unit" | "processes" | "load") => [`test/${project}/**/*.test.ts`];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    // vitest's default (cores - 1) is one worker on a 2-core machine: the processes project
    // waits on git, Chromium and child processes more than it computes.
    maxWorkers: 4,
    hookTimeout: 60_000,
    reporters: ["default"],
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: only("unit"),
          fileParallelism: true,
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "processes",
          include: only("processes"),
          fileParallelism: true,
          sequence: { groupOrder: 0 },
          globalSetup: ["test/support/build-once.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "load",
          include: only("load"),
          fileParallelism: false,
          sequence: { groupOrder: 1 },
          globalSetup: ["test/support/build-once.ts"],
        },
      },
    ],
  },
});
