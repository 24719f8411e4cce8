import type { Browser } from "playwright-core"

/** Chromium's executable: DISPATCH_CHROMIUM, else `chromium` on PATH; an error naming how to install it when neither. */
export declare const chromiumPath: () => string

/** A headless Chromium; `--no-sandbox` because CI runs as root, where Chromium's sandbox refuses to start. */
export declare const launchChromium: () => Promise<Browser>
