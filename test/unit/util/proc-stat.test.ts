import { describe, expect, it } from "vitest";
import { parseStat, readProcesses, readProcessesSync } from "../../../src/util/proc-stat.js";

describe("/proc/PID/stat", () => {
  it("reads ppid and CPU ticks of a process, even with spaces and parentheses in its name", () => {
    const line = "4242 (k6 (worker) x) S 4000 4242 4242 0 -1 4194560 10 0 0 0 70 30 5 5 20 0 12 0";
    expect(parseStat(line)).toMatchObject({ pid: 4242, state: "S", ppid: 4000, ticks: 110 });
  });

  it("reads the group and the reaped children's ticks from a stat line whose name holds ') '", () => {
    const stat =
      "24603 (nginx: worker) x) R 24601 24601 7621 0 -1 4194304 98 0 0 0 12 3 150 50 20 0 1 0 836893 3133440 362 18446744073709551615";
    expect(parseStat(stat)).toMatchObject({ pgrp: 24601, childTicks: 200, startTicks: 836893 });
  });

  it("reads the group and the reaped children's CPU ticks, whatever the command name", () => {
    const stat = "1234 (nginx: worker) S 1 1200 1200 0 -1 4194560 100 0 0 0 150 50 3 2 20 0 1 0 100 0 0";
    expect(parseStat(stat)).toMatchObject({ pgrp: 1200, childTicks: 5 });
  });

  it("refuses what is not a stat line", () => {
    expect(parseStat("")).toBeUndefined();
    expect(parseStat("1 (init) S x y")).toBeUndefined();
  });

  it("lists this process, with its parent and group, read either way", async () => {
    const me = (await readProcesses()).find((p) => p.pid === process.pid);
    expect(me).toMatchObject({ ppid: process.ppid });
    expect(readProcessesSync().find((p) => p.pid === process.pid)).toMatchObject({ ppid: process.ppid });
  });
});
