// Plain k6 for the engine overhead benchmarks: one GET per iteration, no checks, no counters.
// Target and load come from the environment: BENCH_VUS for BENCH_SECONDS, or BENCH_ITERATIONS
// shared by BENCH_VUS (a fixed count, for bench/k6-instructions.ts).
import http from "k6/http";

const url = __ENV.BENCH_URL;
const vus = Number(__ENV.BENCH_VUS);

export const options = {
  scenarios: {
    bare: __ENV.BENCH_ITERATIONS
      ? {
          executor: "shared-iterations",
          vus,
          iterations: Number(__ENV.BENCH_ITERATIONS),
          maxDuration: "600s",
        }
      : { executor: "constant-vus", vus, duration: `${__ENV.BENCH_SECONDS}s` },
  },
};

export default function () {
  http.get(url);
}

export function handleSummary(data) {
  return { [__ENV.BENCH_SUMMARY]: JSON.stringify(data) };
}
