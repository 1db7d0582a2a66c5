import { accessSync, constants } from "node:fs";

/** Where Debian (and Ubuntu's deb) put Chromium. */
const SYSTEM_CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];

export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function systemChromium(): string | undefined {
  return SYSTEM_CHROMIUM.find(isExecutable);
}

/**
 * The browser the Playwright configs launch: CHROMIUM_PATH, else the system's Chromium, else
 * undefined — Playwright's own download, which `npm run test:e2e`'s set-up step installs when the
 * machine has no Chromium (e2e/support/setup-chromium.ts).
 */
export function chromiumPath(): string | undefined {
  return process.env.CHROMIUM_PATH || systemChromium();
}
