import { defineConfig } from "vitest/config";

/**
 * Three projects:
 * - unit: pure tests (no process, port or browser), run in parallel; `npm run test:unit`. Files
 *   share a worker's modules (isolate: false; a third of the time): a pure test leaves no state.
 *   The other projects keep isolation: engines cache where they found their tool, per process.
 * - processes: real processes that time nothing (git, Chromium, the GitHub API server, the
 *   bundled action, `k6 inspect`, the CLI's list and doctor), run in parallel beside unit. Counted
 *   runs (`run --measure instructions`, nginx and HAProxy under callgrind) are here too: they
 *   count instructions, which the rest of the suite on the same cores must not move, and running
 *   them beside it checks that claim of the deterministic mode on every `npm test`.
 * - load: load against real proxies (k6, wrk, vegeta, ab, h2load through nginx, haproxy, the
 *   upstream), timed on the machine's few pinned cores, one file at a time and after the other
 *   two, so that nothing measures anything else. A new test file is load until listed.
 * test/ mirrors src/: the test of src/report/html.ts is test/report/html.test.ts; a module's
 * tests with real processes sit beside it by topic (engines/ab-run, runner/variant-runs).
 */
const UNIT = [
  "test/commands/{compare,publish,report}.test.ts",
  "test/engines/{ab,classify,cpu,load,requests,response-effects}.test.ts",
  "test/engines/vegeta/{args,results}.test.ts",
  "test/engines/h2load/{args,log}.test.ts",
  "test/engines/k6/{config,summary}.test.ts",
  "test/doctor/checks.test.ts",
  "test/environment/tuning.test.ts",
  "test/engines/wrk/{args,summary}.test.ts",
  "test/github/body.test.ts",
  "test/instructions/{callgrind,command,where}.test.ts",
  "test/manifests/{load,template}.test.ts",
  "test/publish/{datajs,event}.test.ts",
  "test/report/{compare,compare-cost,escape,k6-summary,markdown,pr-comment,proxy-cost}.test.ts",
  "test/results/{merge,schema,select}.test.ts",
  "test/runner/{cpus,crash-retries,feedback,noise,plan,proxy-cost,results-file,rounds,shard,specs,variants}.test.ts",
  "test/stats/**/*.test.ts",
  "test/studies/{go-bench,list,load,max-rate,parity,plan,report}.test.ts",
  "test/studies/extensibility/{docker,options,report}.test.ts",
  "test/util/{logs,paths,processes}.test.ts",
];

const PROCESSES = [
  "test/actions/{coprocessor-images,proxy-images,report-action,report-action-combined,report-action-counted,reused-runner,workflows}.test.ts",
  "test/commands/run.test.ts",
  "test/docs/commands.test.ts",
  "test/e2e/missing-tools.test.ts",
  "test/engines/{grpc-health,probe}.test.ts",
  "test/engines/k6/script.test.ts",
  "test/environment/capture.test.ts",
  "test/github/comment.test.ts",
  "test/instructions/{cli,compare-html,docker,run}.test.ts",
  "test/manifests/envoy-extensions.test.ts",
  "test/publish/{git,page,shards}.test.ts",
  "test/report/html.test.ts",
  "test/doctor/needs.test.ts",
  "test/runner/{docker-runtime,leftovers,preflight,proxy-usage,sidecar,tls,variant-images}.test.ts",
  "test/studies/{limits,list-here}.test.ts",
  "test/studies/extensibility/{apollo-router,coprocessors,docker-run}.test.ts",
  "test/upstream/generated.test.ts",
  "test/util/{dies-with-parent,process-groups}.test.ts",
];

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
          include: UNIT,
          fileParallelism: true,
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "processes",
          include: PROCESSES,
          fileParallelism: true,
          sequence: { groupOrder: 0 },
          globalSetup: ["test/support/build-once.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "load",
          include: ["test/**/*.test.ts"],
          exclude: [...UNIT, ...PROCESSES],
          fileParallelism: false,
          sequence: { groupOrder: 1 },
          globalSetup: ["test/support/build-once.ts"],
        },
      },
    ],
  },
});
