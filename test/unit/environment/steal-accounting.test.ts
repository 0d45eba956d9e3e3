import { describe, expect, it } from "vitest";
import { kernelConfigOption, stealAccountingOf } from "../../../src/environment/steal-accounting.js";

// Lines as /proc/config.gz and /boot/config-* hold them (this machine's kernel, 6.18, among them).
const CONFIG = [
  "CONFIG_PARAVIRT=y",
  "# CONFIG_PARAVIRT_DEBUG is not set",
  "CONFIG_PARAVIRT_TIME_ACCOUNTING=y",
  "CONFIG_PARAVIRT_CLOCK=y",
  "# CONFIG_VIRT_CPU_ACCOUNTING_GEN is not set",
  'CONFIG_LOCALVERSION=""',
].join("\n");
const CMDLINE = "console=ttyS0 quiet reboot=k panic=1 psi=1\n";

describe("the kernel's steal accounting", () => {
  it("reads an option's value, 'n' when it is not set, undefined when absent", () => {
    expect(kernelConfigOption(CONFIG, "CONFIG_PARAVIRT_TIME_ACCOUNTING")).toBe("y");
    expect(kernelConfigOption(CONFIG, "CONFIG_PARAVIRT")).toBe("y");
    expect(kernelConfigOption(CONFIG, "CONFIG_VIRT_CPU_ACCOUNTING_GEN")).toBe("n");
    expect(kernelConfigOption(CONFIG, "CONFIG_LOCALVERSION")).toBe('""');
    expect(kernelConfigOption(CONFIG, "CONFIG_SCHEDSTATS")).toBeUndefined();
  });

  it.each<[string, string | undefined, string | undefined, string]>([
    ["the option on", CONFIG, CMDLINE, "excluded"],
    ["the option on, turned off on the command line", CONFIG, "quiet no-steal-acc\n", "included"],
    [
      "the option not set",
      CONFIG.replace("CONFIG_PARAVIRT_TIME_ACCOUNTING=y", "# CONFIG_PARAVIRT_TIME_ACCOUNTING is not set"),
      CMDLINE,
      "included",
    ],
    ["no such option (another architecture's kernel)", "CONFIG_ARM64=y\n", CMDLINE, "unknown"],
    ["no config to read", undefined, CMDLINE, "unknown"],
    ["no command line to read", CONFIG, undefined, "unknown"],
  ])("%s", (_, config, cmdline, expected) => {
    expect(stealAccountingOf(config, cmdline)).toBe(expected);
  });
});
