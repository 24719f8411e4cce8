// The web page's budgets, measured in headless Chromium against the built `dispatch serve`: the gzipped
// JavaScript the first page load fetches (target <= 200 KB), and a job's chart of 100,000 metric points: its draw
// (the page's `performance.measure("chart:<metric>")`, from the points' arrival to the end of the draw) and the
// time from opening the job's page to the chart drawn (target <= 1 s each). The page first reads the series cut
// to the screen's width and draws every value on demand; that on-demand draw is timed too. Printed beside their
// targets, not asserted.
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { gzipSync } from "node:zlib"
import { apiCaller } from "./lib/api.mjs"
import { launchChromium } from "./lib/chromium.mjs"
import { psqlRun, withPostgres } from "./lib/postgres.mjs"
import { buildWebPage, logIn, startWebService, webBuild } from "./lib/web-service.mjs"

// DISPATCH_BENCH_WEB_POINTS=2000 runs it quickly; the target is for 100,000.
const points = Number(process.env.DISPATCH_BENCH_WEB_POINTS ?? 100_000)
// Metric posts in flight at once (the API takes one point per request).
const concurrency = 32
const jsTargetKb = 200
const drawTargetMs = 1000

// On PostgreSQL (DATABASE_URL's server, or one of its own); on PGlite, when there is no PostgreSQL, every point goes
// through the API and the bench takes many minutes.
const measure = async (databaseUrl) => {
  const service = await startWebService(databaseUrl)
  const browser = await launchChromium()
  try {
    // 1. The first page load: every script response, its bytes as they travelled (gzipped by the service).
    const page = await (await browser.newContext()).newPage()
    const sized = []
    page.on("requestfinished", (request) => {
      if (request.resourceType() === "script") sized.push(request.sizes())
    })
    await page.goto(`${service.url}/`, { waitUntil: "networkidle" })
    const scripts = (await Promise.all(sized)).map((sizes) => ({ bytes: sizes.responseBodySize }))
    const loaded = scripts.reduce((sum, s) => sum + s.bytes, 0) / 1024
    // The same from the built files: every JavaScript file of the build, gzipped at the service's level.
    const assets = join(webBuild, "assets")
    const built = readdirSync(assets).filter((name) => name.endsWith(".js")).reduce((sum, name) => sum + gzipSync(readFileSync(join(assets, name)), { level: 9 }).length, 0) / 1024
    console.log(`first page load: ${scripts.length} script(s), ${loaded.toFixed(1)} KB gzipped as sent (target <= ${jsTargetKb} KB: ${loaded <= jsTargetKb ? "met" : "NOT met"})`)
    console.log(`every JavaScript file of the build, gzipped -9: ${built.toFixed(1)} KB`)

    // 2. A job with `points` points of one metric, posted through the API.
    // Its queue has no backend: the job stays queued, only its metrics matter.
    const queue = await service.typed((c) => c.queues.create({ payload: { name: "bench" } }))
    const entrypoint = await service.typed((c) =>
      c.entrypoints.create({ payload: { name: "train", queues: [queue.id], parameters: [], artifactParameters: [], taskGraph: { train: { fit: {} } }, command: ["python", "-m", "train"] } })
    )
    const experiment = await service.typed((c) => c.experiments.create({ payload: { name: "bench", entrypoints: [entrypoint.id] } }))
    const job = (await service.typed((c) => c.jobs.create({ params: { id: experiment.id }, payload: { entrypoint: entrypoint.id, queue: queue.id, values: {}, timeout: "1h", description: "" } }))).id
    // The API takes one point per request (Dioptra's shape), which makes 100,000 posts many minutes of the bench's
    // time for nothing it measures: a thousand go through the API, and on PostgreSQL the rest are written in one
    // statement, as the service itself stores them.
    const post = apiCaller(service.token)
    const value = (step) => 2 / (1 + step / 1000) + 0.05 * Math.sin(step / 50)
    const throughApi = databaseUrl === "" ? points : Math.min(points, 1000)
    const postStart = performance.now()
    let next = 0
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (let step = next++; step < throughApi; step = next++) await post(service.url, "POST", `/jobs/${job}/metrics`, { name: "loss", step, value: value(step) })
      })
    )
    if (throughApi < points) {
      psqlRun(
        databaseUrl,
        `insert into job_metrics (job, name, step, value, recorded_on) select ${job}, 'loss', s, 2.0 / (1 + s / 1000.0) + 0.05 * sin(s / 50.0), now() from generate_series(${throughApi}, ${points - 1}) s`
      )
    }
    console.log(`${points} points: ${throughApi} posted through the API, ${points - throughApi} written straight to PostgreSQL, in ${((performance.now() - postStart) / 1000).toFixed(1)} s`)

    const jobPage = await (await browser.newContext()).newPage()
    await logIn(jobPage, service.url, service.user)
    const opened = performance.now()
    await jobPage.goto(`${service.url}/#/jobs/${job}`)
    await jobPage.locator(`[data-testid=metric-chart][data-metric=loss][data-drawn=true]`).waitFor({ timeout: 600_000 })
    const shown = performance.now() - opened
    const drawn = await jobPage.evaluate(() => performance.getEntriesByName("chart:loss", "measure").at(-1)?.duration)
    if (drawn === undefined) throw new Error("the page drew the chart but made no performance.measure(\"chart:loss\")")
    const chart = jobPage.locator(`[data-testid=metric-chart][data-metric=loss]`)
    const firstDrawn = Number(await chart.getAttribute("data-points"))
    const verdict = (ms) => `target <= ${drawTargetMs} ms: ${ms <= drawTargetMs ? "met" : "NOT met"}`
    console.log(`chart of ${points} points, from opening the job's page: drawn after ${shown.toFixed(0)} ms (${verdict(shown)}), from ${firstDrawn} points of the series cut to the screen's width; that draw ${drawn.toFixed(0)} ms from their arrival`)
    // Every value, on demand: from the click to the whole series drawn.
    const asked = performance.now()
    const cut = jobPage.getByTestId("metric-read-whole")
    if ((await cut.count()) > 0) {
      await cut.click()
      await jobPage.locator(`[data-testid=metric-chart][data-metric=loss][data-points="${points}"][data-drawn=true]`).waitFor({ timeout: 600_000 })
      const wholeDrawn = await jobPage.evaluate(() => performance.getEntriesByName("chart:loss", "measure").at(-1)?.duration)
      console.log(
        `chart of every one of the ${points} points, on demand: drawn ${(performance.now() - asked).toFixed(0)} ms after the click; ` +
          `the draw ${wholeDrawn.toFixed(0)} ms from their arrival (${verdict(wholeDrawn)})`
      )
    } else console.log(`chart of ${points} points: drawn whole at once (the series fits the screen's width)`)
  } finally {
    await browser.close()
    await service.stop()
  }
}

buildWebPage()
let measured = false
await withPostgres(async (databaseUrl) => {
  measured = true
  await measure(databaseUrl)
})
if (!measured) await measure("")
