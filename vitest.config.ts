import { defineConfig } from "vitest/config";

/**
 * Two projects:
 * - unit: pure tests (no process, port or browser), run in parallel; `npm run test:unit`.
 * - integration: real processes (k6, nginx, haproxy, the upstream, Chromium, valgrind) pinned
 *   to the machine's few cores, one file at a time so they do not measure each other. It runs
 *   after the unit project, never beside it. A new test file is integration until listed here.
 * test/ mirrors src/: the test of src/report/html.ts is test/report/html.test.ts; a module's
 * tests with real processes sit beside it by topic (engines/ab-run, runner/variant-runs).
 */
const UNIT = [
  "test/commands/{publish,report}.test.ts",
  "test/engines/{ab,classify,cpu,load,requests,response-effects,vegeta}.test.ts",
  "test/engines/h2load/{args,log}.test.ts",
  "test/engines/k6/{config,summary}.test.ts",
  "test/environment/tuning.test.ts",
  "test/engines/wrk/{args,summary}.test.ts",
  "test/github/body.test.ts",
  "test/instructions/{callgrind,command,where}.test.ts",
  "test/manifests/{load,template}.test.ts",
  "test/publish/{datajs,event}.test.ts",
  "test/report/{compare,escape,k6-summary,markdown}.test.ts",
  "test/results/{merge,schema,select}.test.ts",
  "test/runner/{cpus,feedback,noise,plan,results-file,rounds,shard,specs,variants}.test.ts",
  "test/stats/**/*.test.ts",
  "test/studies/{go-bench,list,load,max-rate,parity,plan,report}.test.ts",
  "test/studies/extensibility/{options,report}.test.ts",
  "test/util/{logs,paths,processes}.test.ts",
];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ["default"],
    projects: [
      {
        extends: true,
        test: { name: "unit", include: UNIT, fileParallelism: true, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["test/**/*.test.ts"],
          exclude: UNIT,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
          globalSetup: ["test/support/build-once.ts"],
        },
      },
    ],
  },
});
