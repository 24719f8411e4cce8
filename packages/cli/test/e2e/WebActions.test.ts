// The web page's actions in a real browser (headless Chromium): cancel and re-run through the buttons, each behind
// a confirmation, checked against the API afterwards; the queues page shows each queue's gate and why it is not
// open; and the actions work from the keyboard alone.
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launchBrowser, loggedInPage, startSideBySide, pageBoundMs } from "../Browser.ts"
import { processTestMs } from "../DispatchBinary.ts"
import { allJobs, exampleExperiment } from "../ServiceCalls.ts"
import { startWebService, type WebService } from "../WebService.ts"

let web: WebService
let browser: Browser
let page: Page
// A queue without a backend, whose jobs stay queued, and one with the example backend, whose jobs run.
let gated: Awaited<ReturnType<typeof exampleExperiment>>
let open: Awaited<ReturnType<typeof exampleExperiment>>

beforeAll(async () => {
  await startSideBySide(startWebService(), launchBrowser(), (started, launched) => {
    if (started !== undefined) web = started
    if (launched !== undefined) browser = launched
  })
  gated = await exampleExperiment(web.service, web.service, { gated: true, tag: "-gated" })
  open = await exampleExperiment(web.service, web.service)
  page = await loggedInPage(browser, web)
}, processTestMs)
afterAll(async () => {
  await browser?.close()
  await web?.stop()
})

const submit = (world: typeof gated) => web.service.typed((c) => c.jobs.create({ params: { id: world.experiment }, payload: world.job as never }))
const read = (id: number) => web.service.typed((c) => c.jobs.read({ params: { id } }))
const jobPage = async (id: number) => {
  await page.goto(`${web.url}/#/jobs/${id}`)
  await page.getByTestId("job-status").waitFor()
}

describe("the web page's actions in Chromium", { timeout: processTestMs }, () => {
  it("cancel asks first: No leaves the job queued, Yes cancels it, as the API then answers", async () => {
    const job = await submit(gated)
    await jobPage(job.id)
    await page.getByTestId("action-cancel").click()
    await page.getByTestId("confirm-dialog").waitFor()
    await page.getByTestId("confirm-no").click()
    await page.getByTestId("confirm-dialog").waitFor({ state: "hidden" })
    expect((await read(job.id)).status).toBe("queued")

    await page.getByTestId("action-cancel").click()
    await page.getByTestId("confirm-yes").click()
    await page.getByTestId("job-status").filter({ hasText: "failed" }).waitFor()
    const cancelled = await read(job.id)
    expect(cancelled.status).toBe("failed")
    expect(cancelled.dispatch.reason).toBe("cancelled")
  })

  it("re-run of a finished job makes a new job of the same entrypoint, a re-run of the first, and opens its page", async () => {
    const job = await submit(open)
    await expect.poll(async () => (await read(job.id)).status, { timeout: pageBoundMs, interval: 250 }).toBe("finished")
    await jobPage(job.id)
    const before = (await allJobs(web.service)).map((j) => j.id)
    await page.getByTestId("action-rerun").click()
    await page.getByTestId("confirm-yes").click()
    // The page goes to the new job, which the API lists as a re-run of the first.
    await page.waitForURL((url) => url.hash !== `#/jobs/${job.id}`)
    const added = (await allJobs(web.service)).filter((j) => !before.includes(j.id))
    expect(added.map((j) => [`#/jobs/${j.id}`, j.dispatch.rerunOf, j.entrypoint.id])).toEqual([[new URL(page.url()).hash, job.id, job.entrypoint.id]])
    expect((await read(job.id)).status).toBe("finished")
  })

  it("the queues page shows each queue's gate, and why a closed one is not open", async () => {
    await page.goto(`${web.url}/#/queues`)
    const closed = page.locator(`[data-testid=queue-row][data-id="${gated.job.queue}"]`)
    await closed.waitFor()
    expect(await closed.getAttribute("data-gate")).toBe("unproven")
    expect(await closed.textContent()).toContain("has no backend")
    // The example backend's gate is proven open once the dispatcher ran its probe; the page shows it on its own.
    await page.locator(`[data-testid=queue-row][data-id="${open.job.queue}"][data-gate=open]`).waitFor()
  })

  it("from the keyboard alone: Tab reaches cancel, Enter opens the confirmation, Tab and Enter confirm", async () => {
    const job = await submit(gated)
    await jobPage(job.id)
    const focused = () => page.evaluate(() => (globalThis as unknown as { document: { activeElement: { getAttribute(name: string): string | null } | null } }).document.activeElement?.getAttribute("data-testid") ?? null)
    const tabTo = async (testId: string) => {
      for (let presses = 0; presses < 100 && (await focused()) !== testId; presses++) await page.keyboard.press("Tab")
      expect(await focused()).toBe(testId)
    }
    await tabTo("action-cancel")
    await page.keyboard.press("Enter")
    await page.getByTestId("confirm-dialog").waitFor()
    await tabTo("confirm-yes")
    await page.keyboard.press("Enter")
    await expect.poll(async () => (await read(job.id)).status, { timeout: pageBoundMs, interval: 250 }).toBe("failed")
    await page.getByTestId("job-status").filter({ hasText: "failed" }).waitFor()
  })
})
