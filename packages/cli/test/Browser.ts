// The web page's tests drive Debian's Chromium headless through playwright-core; without it they fail naming how
// to install it, never skip.
import type { Browser, Page } from "playwright-core"
import { launchChromium } from "../../../bench/lib/chromium.mjs"
import type { WebService } from "./WebService.ts"

/** A headless Chromium (DISPATCH_CHROMIUM, else `chromium` on PATH). */
export const launchBrowser = (): Promise<Browser> => launchChromium()

/**
 * Waits for both to settle and hands `keep` whatever started, then throws the first failure: with Promise.all,
 * a browser that fails to launch leaves the service it was started beside running, unseen by afterAll.
 */
export const startSideBySide = async <A, B>(a: Promise<A>, b: Promise<B>, keep: (a: A | undefined, b: B | undefined) => void): Promise<void> => {
  const [x, y] = await Promise.allSettled([a, b])
  keep(x.status === "fulfilled" ? x.value : undefined, y.status === "fulfilled" ? y.value : undefined)
  if (x.status === "rejected") throw x.reason
  if (y.status === "rejected") throw y.reason
}

/**
 * How long a page may take to show what the service did: the embedded simulator runs a job for seconds, the page
 * follows within a few more; this bound holds on a machine far more than 5x slower, the rest of the suite beside it.
 */
export const pageBoundMs = 120_000

/** A new page (its own cookies) logged in as the service's signed-up user through the login form. */
export const loggedInPage = async (browser: Browser, web: WebService): Promise<Page> => {
  const context = await browser.newContext()
  context.setDefaultTimeout(pageBoundMs)
  const page = await context.newPage()
  await page.goto(`${web.url}/#/login`)
  await page.getByTestId("login-username").fill(web.user.username)
  await page.getByTestId("login-password").fill(web.user.password)
  await page.getByTestId("login-submit").click()
  await page.getByTestId("logout").waitFor()
  return page
}

// The recorder runs in the page, whose DOM types this Node program does not load: it reaches them through `page`.
interface InPage {
  readonly document: { querySelector(selector: string): { readonly textContent: string | null } | null; readonly body: unknown }
  readonly MutationObserver: new (callback: () => void) => { observe(target: unknown, options: object): void }
  __seen?: Record<string, Array<string>>
}

/** Starts recording, in the page, every text `[data-testid=testId]` shows, as it changes (consecutive repeats once). */
export const recordTexts = (page: Page, testId: string): Promise<void> =>
  page.evaluate((id) => {
    const inPage = globalThis as unknown as InPage
    const seen: Array<string> = []
    inPage.__seen = { ...inPage.__seen, [id]: seen }
    const look = () => {
      const text = inPage.document.querySelector(`[data-testid="${id}"]`)?.textContent?.trim()
      if (text !== undefined && text !== seen.at(-1)) seen.push(text)
    }
    look()
    new inPage.MutationObserver(look).observe(inPage.document.body, { subtree: true, childList: true, characterData: true, attributes: true })
  }, testId)

/** The texts `recordTexts` saw so far. */
export const recordedTexts = (page: Page, testId: string): Promise<Array<string>> =>
  page.evaluate((id) => (globalThis as unknown as InPage).__seen?.[id] ?? [], testId)
