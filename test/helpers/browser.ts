import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { serviceMissing } from './services.ts';

/** Debian's Chromium, which .ci/run installs; playwright-core never downloads a browser of its own. */
export const CHROMIUM_PATH = process.env.HCAS_CHROMIUM ?? '/usr/bin/chromium';

/** True when the browser tests can run; otherwise says so loudly (and under CI=true fails), so a skip is never silent. */
export function chromiumAvailable(what: string): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  serviceMissing(what, `No browser at ${CHROMIUM_PATH}: install it (apt-get install -y chromium, as .ci/run does) or set HCAS_CHROMIUM.`);
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
