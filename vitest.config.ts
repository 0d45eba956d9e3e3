import { defineConfig } from "vitest/config";

/**
 * Two projects:
 * - unit: pure tests (no process, port or browser), run in parallel; `npm run test:unit`.
 * - integration: real processes (k6, nginx, haproxy, the upstream, Chromium, valgrind) pinned
 *   to the machine's few cores, one file at a time so they do not measure each other. It runs
 *   after the unit project, never beside it. A new test file is integration until listed here.
 */
const UNIT = [
  "test/stats/**/*.test.ts",
  "test/unit/**/*.test.ts",
  "test/engines/{ab,classify,cpu,k6-summary,load,requests,response-effects,vegeta}.test.ts",
  "test/github/body.test.ts",
  "test/instructions/{verdict,where}.test.ts",
  "test/manifests/{load,template}.test.ts",
  "test/publish/{datajs,event,settings}.test.ts",
  "test/report/{compare,escape,k6-summary,markdown,report-command}.test.ts",
  "test/runner/{cpus,feedback,noise,parse-variant,plan,results-file,rounds,shard,specs}.test.ts",
  "test/studies/{extensibility,go-bench,list,load,max-rate,parity,plan,report}.test.ts",
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
        },
      },
    ],
  },
});
