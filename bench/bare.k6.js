// Plain k6 for the engine overhead benchmark: one GET per iteration, no checks, no counters,
// the same load as the engine's ceiling run. Target and load come from the environment.
import http from "k6/http";

const url = __ENV.BENCH_URL;

export const options = {
  scenarios: {
    bare: { executor: "constant-vus", vus: Number(__ENV.BENCH_VUS), duration: `${__ENV.BENCH_SECONDS}s` },
  },
};

export default function () {
  http.get(url);
}

export function handleSummary(data) {
  return { [__ENV.BENCH_SUMMARY]: JSON.stringify(data) };
}
