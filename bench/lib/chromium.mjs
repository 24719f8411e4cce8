// Debian's Chromium, headless, driven by playwright-core: for the web page's tests, its bench and its screenshots.
import { existsSync } from "node:fs"
import { join } from "node:path"
import { chromium } from "playwright-core"

/** Chromium's executable: DISPATCH_CHROMIUM, else `chromium` on PATH; an error naming how to install it when neither. */
export const chromiumPath = () => {
  const given = process.env.DISPATCH_CHROMIUM
  if (given !== undefined && given !== "") return given
  const found = (process.env.PATH ?? "").split(":").map((dir) => join(dir, "chromium")).find((file) => existsSync(file))
  if (found === undefined) throw new Error("no chromium on PATH and DISPATCH_CHROMIUM is not set: install Debian's chromium (apt-get install chromium), as .ci/run does")
  return found
}

/** A headless Chromium; `--no-sandbox` because CI runs as root, where Chromium's sandbox refuses to start. */
export const launchChromium = () => chromium.launch({ executablePath: chromiumPath(), args: ["--no-sandbox"] })
