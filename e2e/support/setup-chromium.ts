/**
 * Runs before the browser tests (`pretest:e2e`, `prebench`): makes sure a Chromium is there and
 * says which. Debian's `/usr/bin/chromium` first; else, as root, Debian's package via apt-get;
 * else Playwright's own build. Exits non-zero with what to do when none can be had.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chromium } from "@playwright/test";
import { isExecutable, systemChromium } from "./chromium";

const say = (line: string) => console.log(`[chromium] ${line}`);

function run(command: string, args: string[]): boolean {
  say(`$ ${[command, ...args].join(" ")}`);
  const result = spawnSync(command, args, { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  return result.status === 0;
}

const playwrightOwn = () => existsSync(chromium.executablePath());

function giveUp(why: string): never {
  console.error(`[chromium] ${why}
[chromium] The browser tests need Chromium. Install one, then run npm test again:
[chromium]   Debian/Ubuntu:  sudo apt-get update && sudo apt-get install -y chromium
[chromium]   anywhere else:  npx playwright install --with-deps chromium
[chromium]   or point CHROMIUM_PATH at a Chrome or Chromium binary.`);
  process.exit(1);
}

/** Finds or installs a Chromium and says which one the tests will use. */
function setUp(): string {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) {
    if (!isExecutable(configured)) giveUp(`CHROMIUM_PATH=${configured} is not an executable file.`);
    return `using CHROMIUM_PATH=${configured}`;
  }
  const system = systemChromium();
  if (system) return `using the system's Chromium at ${system}`;
  if (playwrightOwn()) return `using Playwright's Chromium at ${chromium.executablePath()}`;

  if (process.getuid?.() === 0 && isExecutable("/usr/bin/apt-get")) {
    say("no Chromium found; running as root, so installing Debian's package");
    // --reinstall also repairs a package that is installed but whose binary went missing.
    if (run("apt-get", ["update"]) && run("apt-get", ["install", "-y", "--reinstall", "chromium"]) && systemChromium()) {
      return `installed; using the system's Chromium at ${systemChromium()}`;
    }
    say("apt-get could not install Chromium; trying Playwright's own build");
  } else {
    say("no Chromium found and not root (no apt-get); installing Playwright's own build");
  }
  if (run("npx", ["playwright", "install", "chromium"]) && playwrightOwn()) {
    return `installed; using Playwright's Chromium at ${chromium.executablePath()}`;
  }
  giveUp("could not install Chromium.");
}

say(setUp());
