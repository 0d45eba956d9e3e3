// The k6 executor of a proxybench load model (src/engines/k6/config.ts K6Load), shared by the
// HTTP library (proxybench.js) and the gRPC one (proxybench-grpc.js).

/** `options.scenarios[name]` for a load model and a measured window in seconds. */
export function executor(load, durationS) {
  const duration = `${durationS}s`;
  switch (load.model) {
    case "constant-arrival-rate":
      return {
        executor: "constant-arrival-rate",
        rate: load.rate,
        timeUnit: "1s",
        duration,
        preAllocatedVUs: load.preAllocatedVUs,
        maxVUs: load.maxVUs,
        gracefulStop: "2s",
      };
    case "fixed-count":
      return {
        executor: "shared-iterations",
        vus: load.vus,
        iterations: load.iterations,
        maxDuration: duration,
        gracefulStop: "2s",
      };
    default:
      return { executor: "constant-vus", vus: load.vus, duration, gracefulStop: "2s" };
  }
}
