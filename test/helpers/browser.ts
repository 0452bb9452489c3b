import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';

/**
 * Debian's Chromium (found or installed by test/setup/globalSetup.cjs, which sets CHROMIUM_PATH),
 * driven by playwright-core, which never downloads a browser.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
