// The measured window of a k6 run, shared by the HTTP library (proxybench.js) and the gRPC one
// (proxybench-grpc.js): correct responses that complete after it (the iterations still in
// flight after `duration`) are counted apart, in proxybench_ok_tail, and left out of throughput.
import exec from "k6/execution";

/**
 * Per VU: a function to call at each correct response, which adds 1 to `tail` when the response
 * completed after the window (`durationS` from the scenario's start).
 *
 * Reading the clock on every response held the engine to 0.887 of bare k6's rate; reading it as
 * below, 0.906-0.963 (`npm run bench`, docs/engines.md). Under constant-vus, where each VU loops
 * without pause, it is read only when the window's end may be near: after as many responses as
 * this VU completes in a quarter of the time left, at the pace it kept since its last read (at
 * most 64). The closer the end, the more often it is read; in the last four response times of the
 * window, on every response. A response is counted inside the window without a read only if the
 * VU's responses suddenly took four times as long right before the end. Under an arrival rate, VUs
 * wait between iterations: the clock is read on every response. A fixed count has no window to
 * leave (every correct response counts): never.
 */
export function tailCounter(model, durationS, tail) {
  const skipMax = { "constant-vus": 64, "constant-arrival-rate": 0, "fixed-count": Infinity }[model];
  if (skipMax === undefined) throw new Error(`proxybench: load model '${model}' has no measured window here`);
  const windowMs = durationS * 1000;
  let windowEnd = 0;
  let skip = skipMax === Infinity ? Infinity : 0; // correct responses before the next read
  let readAt = 0;
  let readEvery = 1; // responses from one read to the next
  return function countTail() {
    if (skip > 0) {
      skip -= 1;
      return;
    }
    const now = Date.now();
    if (windowEnd === 0) windowEnd = exec.scenario.startTime + windowMs;
    if (now > windowEnd) {
      tail.add(1);
      return;
    }
    if (readAt > 0) {
      // Two reads in the same millisecond: under 1 ms per response, which is taken as the pace.
      const msPerResponse = Math.max(now - readAt, 1) / readEvery;
      skip = Math.min(skipMax, Math.floor((windowEnd - now) / (4 * msPerResponse)));
    }
    readAt = now;
    readEvery = skip + 1;
  };
}
