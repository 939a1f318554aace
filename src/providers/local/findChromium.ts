import { accessSync, constants } from "node:fs";

/** Where Debian and Ubuntu put Chromium; the real binary first, since /usr/bin/chromium is a shell wrapper. */
const KNOWN_PATHS = [
  "/usr/lib/chromium/chromium",
  "/usr/bin/chromium",
  "/usr/lib/chromium-browser/chromium-browser",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome-stable",
  "/usr/bin/google-chrome",
  "/snap/bin/chromium",
];

export const CHROMIUM_INSTALL_HINT =
  "No Chromium found. Install Debian's package (sudo apt-get install -y chromium) or set CHROME_PATH to a Chromium or Chrome binary. errand never downloads a browser.";

/** CHROME_PATH when set (and executable), else the first known path that is executable, else null. */
export function findChromium(env: NodeJS.ProcessEnv): string | null {
  const candidates = env["CHROME_PATH"] ? [env["CHROME_PATH"]] : KNOWN_PATHS;
  for (const path of candidates) {
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here; try the next
    }
  }
  return null;
}
