import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium, which .ci/run installs; playwright-core never downloads a browser of its own. */
export const CHROMIUM_PATH = process.env.HCAS_CHROMIUM ?? '/usr/bin/chromium';

/** True when the browser tests can run; otherwise says so loudly, once per file, so a skip is never silent. */
export function chromiumAvailable(what: string): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  const line = '!'.repeat(100);
  console.warn(`\n${line}\n!! ${what}: SKIPPED, no browser at ${CHROMIUM_PATH}.\n!! Install it (apt-get install -y chromium, as .ci/run does) or set HCAS_CHROMIUM; CI must run these tests.\n${line}\n`);
  return false;
}

/** One headless Chromium for a test file; the flags keep it off the network beyond what the tests ask. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    timeout: 30_000,
  });
}
