// The web page in a real browser (headless Chromium): a user signed up through the API logs in through the page,
// watches a job submitted through the API go queued -> started -> finished without reloading, reads its logs and
// checks its chart's points against the metrics posted.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launchBrowser, loggedInPage, startSideBySide, pageBoundMs, recordedTexts, recordTexts } from "../Browser.ts"
import { processTestMs, repoRoot } from "../DispatchBinary.ts"
import { exampleBackend, exampleExperiment } from "../ServiceCalls.ts"
import { startWebService, type WebService } from "../WebService.ts"

let web: WebService
let browser: Browser
let page: Page
let world: Awaited<ReturnType<typeof exampleExperiment>>
let queue: number
const dir = mkdtempSync(join(tmpdir(), "dispatch-web-job-"))
const go = join(dir, "go")

beforeAll(async () => {
  await startSideBySide(startWebService({ exec: true }), launchBrowser(), (started, launched) => {
    if (started !== undefined) web = started
    if (launched !== undefined) browser = launched
  })
  // The queue has no backend yet: its jobs wait, queued, until the test gives it one; then each job's process runs
  // until the test makes the file `go`.
  world = await exampleExperiment(web.service, web.service, { gated: true, command: ["sh", "-c", `until [ -e ${go} ]; do sleep 0.1; done`] })
  queue = world.job.queue
  page = await loggedInPage(browser, web)
}, processTestMs)
afterAll(async () => {
  await browser?.close()
  await web?.stop()
  rmSync(dir, { recursive: true, force: true })
})

const submit = () => web.service.typed((c) => c.jobs.create({ params: { id: world.experiment }, payload: world.job as never }))
const texts = (testId: string) => page.getByTestId(testId).allTextContents()

describe("the web page in Chromium", { timeout: processTestMs }, () => {
  it("a wrong password keeps the login form and says so; the signed-up user's is accepted", async () => {
    const other = await (await browser.newContext()).newPage()
    await other.goto(`${web.url}/#/login`)
    await other.getByTestId("login-username").fill(web.user.username)
    await other.getByTestId("login-password").fill("not the password")
    await other.getByTestId("login-submit").click()
    await other.getByRole("alert").waitFor({ timeout: pageBoundMs })
    expect(await other.getByTestId("logout").count()).toBe(0)
    await other.context().close()
    // The logged-in page of beforeAll reads the API as that user: its group's experiment is listed.
    await page.goto(`${web.url}/#/experiments`)
    await page.locator(`[data-testid=experiment-row][data-id="${world.experiment}"]`).waitFor()
  })

  it("a job submitted through the API shows queued, then started, then finished, without a reload", async () => {
    const job = await submit()
    await page.goto(`${web.url}/#/experiments/${world.experiment}`)
    await page.locator(`[data-testid=job-row][data-id="${job.id}"][data-status=queued]`).waitFor()
    await page.goto(`${web.url}/#/jobs/${job.id}`)
    await page.getByTestId("job-status").filter({ hasText: "queued" }).waitFor()
    await recordTexts(page, "job-status")
    // The gate opens once the queue has a backend: the dispatcher starts the job on the simulator, whose process
    // waits for the test; the page follows it without being reloaded.
    await web.service.typed((c) => c.queues.modify({ params: { id: queue }, payload: { name: "gpu", backend: exampleBackend() } }))
    await page.getByTestId("job-status").filter({ hasText: "started" }).waitFor()
    writeFileSync(go, "")
    await page.getByTestId("job-status").filter({ hasText: "finished" }).waitFor()
    expect(await recordedTexts(page, "job-status")).toEqual(["queued", "started", "finished"])
    await expect.poll(() => page.getByTestId("history-row").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-status"))), { timeout: pageBoundMs }).toEqual(["queued", "started", "finished"])
    expect((await web.service.typed((c) => c.jobs.read({ params: { id: job.id } }))).status).toBe("finished")
  })

  it("shows the logs posted through the API, filters them by severity, and follows new ones", async () => {
    const job = await submit()
    const records = [
      { severity: "INFO", loggerName: "train", message: "loaded the dataset" },
      { severity: "WARNING", loggerName: "train", message: "learning rate is high" },
      { severity: "ERROR", loggerName: "train", message: "gradient overflow at step 7" }
    ] as const
    await web.service.typed((c) => c.jobs.appendLog({ params: { id: job.id }, payload: { data: records } }))
    await page.goto(`${web.url}/#/jobs/${job.id}`)
    await expect.poll(() => texts("log-line"), { timeout: pageBoundMs }).toHaveLength(3)
    const lines = await texts("log-line")
    records.forEach((record, i) => expect(lines[i]).toContain(record.message))
    expect(await page.getByTestId("log-line").evaluateAll((els) => els.map((el) => el.getAttribute("data-severity")))).toEqual(["INFO", "WARNING", "ERROR"])

    await page.getByTestId("log-severity").selectOption("ERROR")
    await expect.poll(() => texts("log-line"), { timeout: pageBoundMs }).toEqual([expect.stringContaining("gradient overflow")])

    await page.getByTestId("log-severity").selectOption("")
    await page.getByTestId("log-follow").check()
    await expect.poll(() => texts("log-line"), { timeout: pageBoundMs }).toHaveLength(3)
    await web.service.typed((c) => c.jobs.appendLog({ params: { id: job.id }, payload: { data: [{ severity: "INFO", loggerName: "train", message: "epoch 2 done" }] } }))
    await expect.poll(() => texts("log-line"), { timeout: pageBoundMs }).toHaveLength(4)
    expect((await texts("log-line"))[3]).toContain("epoch 2 done")
  })

  it("draws each metric's chart and its table holds exactly the points posted, NaN and infinities included", async () => {
    const job = await submit()
    const loss = [2.5, 1.75, "nan", 0.875, "inf", 0.5, "-inf", 0.25] as const
    for (const [step, value] of loss.entries()) {
      await web.service.typed((c) => c.jobs.recordMetric({ params: { id: job.id }, payload: { name: "loss", step, value } }))
    }
    await web.service.typed((c) => c.jobs.recordMetric({ params: { id: job.id }, payload: { name: "accuracy", step: 3, value: 0.5 } }))
    await page.goto(`${web.url}/#/jobs/${job.id}`)
    await page.locator(`[data-testid=metric-chart][data-metric=loss][data-drawn=true]`).waitFor()
    await page.locator(`[data-testid=metric-chart][data-metric=accuracy][data-drawn=true]`).waitFor()
    // The page measures from the data's arrival to the end of the draw.
    expect(await page.evaluate(() => performance.getEntriesByName("chart:loss", "measure").length)).toBeGreaterThan(0)

    const lossPanel = page.locator(`[data-testid=metric][data-metric=loss]`)
    await lossPanel.getByTestId("metric-table-toggle").click()
    const rows = lossPanel.getByTestId("metric-row")
    await rows.first().waitFor()
    const shown = await rows.evaluateAll((els) => els.map((el) => [Number(el.getAttribute("data-step")), el.getAttribute("data-value")]))
    expect(shown).toEqual(loss.map((value, step) => [step, String(value)]))
  })

  it("runs examples/train.py as the job's pod: the page draws its falling loss curve and shows its log lines", async () => {
    const train = await exampleExperiment(web.service, web.service, { tag: "-train", command: ["python3", join(repoRoot, "examples", "train.py")] })
    const job = await web.service.typed((c) => c.jobs.create({ params: { id: train.experiment }, payload: train.job as never }))
    await page.goto(`${web.url}/#/jobs/${job.id}`)
    await page.getByTestId("job-status").filter({ hasText: "finished" }).waitFor({ timeout: processTestMs })
    await page.locator(`[data-testid=metric-chart][data-metric=loss][data-drawn=true]`).waitFor()
    const lossPanel = page.locator(`[data-testid=metric][data-metric=loss]`)
    await lossPanel.getByTestId("metric-table-toggle").click()
    await lossPanel.getByTestId("metric-row").first().waitFor()
    const shown = await lossPanel.getByTestId("metric-row").evaluateAll((els) => els.map((el) => [Number(el.getAttribute("data-step")), Number(el.getAttribute("data-value"))]))
    // The curve is every step the script reported, as the service stored it, and it falls.
    const stored = await web.service.typed((c) => c.jobs.metricSnapshots({ params: { id: job.id, name: "loss" }, query: { pageLength: 1000 } }))
    expect(shown).toEqual(stored.data.map((m) => [m.step, m.value]))
    expect(shown.map(([step]) => step)).toEqual(Array.from({ length: 100 }, (_, i) => i))
    const mean = (points: ReadonlyArray<ReadonlyArray<number>>) => points.reduce((sum, [, value]) => sum + (value ?? 0), 0) / points.length
    expect(mean(shown.slice(-20))).toBeLessThan(mean(shown.slice(0, 20)))
    await page.locator(`[data-testid=metric-chart][data-metric=accuracy][data-drawn=true]`).waitFor()
    await expect.poll(() => texts("log-line"), { timeout: pageBoundMs }).toHaveLength(7)
    const lines = await texts("log-line")
    expect(lines[0]).toContain("training logistic regression on 640 examples")
    expect(lines[5]).toContain("epoch 5/5")
    expect(lines[6]).toContain("training done after 100 steps")
  })
})
