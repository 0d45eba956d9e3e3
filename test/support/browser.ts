import { chromium, type Browser } from "playwright-core";

/** Debian's Chromium (`apt-get install chromium`), installed by scripts/setup.sh --for-tests. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * Launches headless Chromium with the network quiet (no background requests to the outside:
 * this machine has none). playwright-core gives each launch a fresh, temporary profile.
 * Call `close()` in afterAll.
 */
export async function launchBrowser(): Promise<{ browser: Browser; close: () => Promise<void> }> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return { browser, close: () => browser.close() };
}
