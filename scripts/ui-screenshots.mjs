// `node scripts/ui-screenshots.mjs`: rebuilds the web page, starts `dispatch serve --sim --signup` with demo data
// (two experiments, jobs that ran on the embedded simulator with logs and metrics, a queue without a backend) and
// writes a screenshot of each page, at a laptop's and a phone's width, into docs/ui/ for docs/ui.md.
// Needs the build (`pnpm build`) and Chromium (DISPATCH_CHROMIUM, else `chromium` on PATH).
import { mkdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { launchChromium } from "../bench/lib/chromium.mjs"
import { buildWebPage, logIn, startWebService } from "../bench/lib/web-service.mjs"

const repo = fileURLToPath(new URL("..", import.meta.url))
const out = join(repo, "docs", "ui")
const widths = { laptop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } }
const bound = 300_000

const demoData = async (typed) => {
  const config = JSON.parse(readFileSync(join(repo, "examples", "config.json"), "utf8"))
  const gpu = await typed((c) => c.queues.create({ payload: { name: "gpu", description: "the training nodes", backend: { config, runtime: config.runtimes[0], image: "example/worker:1" } } }))
  const spare = await typed((c) => c.queues.create({ payload: { name: "spare-gpu", description: "borrowed nodes, not set up yet" } }))
  const entrypoint = await typed((c) =>
    c.entrypoints.create({
      payload: {
        name: "train-resnet",
        description: "trains a ResNet on the dataset",
        queues: [gpu.id, spare.id],
        parameters: [
          { name: "epochs", type: "integer", defaultValue: "20" },
          { name: "lr", type: "float", defaultValue: "0.01" }
        ],
        artifactParameters: [],
        taskGraph: { train: { fit: { epochs: "$epochs", lr: "$lr" } } },
        command: ["python", "-m", "train"]
      }
    })
  )
  const sweep = await typed((c) => c.experiments.create({ payload: { name: "resnet-sweep", description: "learning-rate sweep", entrypoints: [entrypoint.id] } }))
  await typed((c) => c.experiments.create({ payload: { name: "bert-finetune", description: "fine-tuning on support tickets", entrypoints: [entrypoint.id] } }))
  const submit = (queue, lr) =>
    typed((c) => c.jobs.create({ params: { id: sweep.id }, payload: { entrypoint: entrypoint.id, queue: queue.id, values: { epochs: "20", lr }, timeout: "2h", description: `lr ${lr}` } }))
  const ran = []
  for (const lr of ["0.1", "0.03", "0.01"]) ran.push(await submit(gpu, lr))
  const waiting = await submit(spare, "0.003")
  const shown = ran[2]
  await typed((c) =>
    c.jobs.appendLog({
      params: { id: shown.id },
      payload: {
        data: [
          { severity: "INFO", loggerName: "train", message: "loaded 50,000 images" },
          { severity: "INFO", loggerName: "train", message: "epoch 1/20: loss 2.31" },
          { severity: "WARNING", loggerName: "train", message: "gradient norm 1e4 at step 120, clipped" },
          { severity: "ERROR", loggerName: "train", message: "loss is NaN at step 140, skipping the batch" },
          { severity: "INFO", loggerName: "train", message: "epoch 20/20: loss 0.41" }
        ]
      }
    })
  )
  for (let step = 0; step < 200; step++) {
    const loss = step === 140 ? "nan" : 2.3 * Math.exp(-step / 60) + 0.35 + 0.05 * Math.sin(step / 4)
    await typed((c) => c.jobs.recordMetric({ params: { id: shown.id }, payload: { name: "loss", step, value: loss } }))
    if (step % 10 === 0) await typed((c) => c.jobs.recordMetric({ params: { id: shown.id }, payload: { name: "accuracy", step, value: 0.95 - 0.85 * Math.exp(-step / 50) } }))
  }
  // The three jobs on `gpu` run on the embedded simulator; the one on `spare-gpu` waits for a backend.
  for (const end = Date.now() + bound; ; await new Promise((resolve) => setTimeout(resolve, 250))) {
    const statuses = await Promise.all(ran.map((job) => typed((c) => c.jobs.read({ params: { id: job.id } }))))
    if (statuses.every((job) => job.status === "finished")) break
    if (Date.now() > end) throw new Error(`the demo jobs did not finish within ${bound} ms: ${statuses.map((job) => job.status).join(", ")}`)
  }
  return { experiment: sweep.id, job: shown.id, waiting: waiting.id }
}

buildWebPage()
mkdirSync(out, { recursive: true })
const service = await startWebService()
const browser = await launchChromium()
try {
  const demo = await demoData(service.typed)
  const pages = [
    ["experiments", "#/experiments", "[data-testid=experiment-row]"],
    ["experiment-jobs", `#/experiments/${demo.experiment}`, "[data-testid=job-row]"],
    ["job", `#/jobs/${demo.job}`, "[data-testid=metric-chart][data-drawn=true]"],
    ["queues", "#/queues", "[data-testid=queue-row]"]
  ]
  for (const [device, viewport] of Object.entries(widths)) {
    const context = await browser.newContext({ viewport, deviceScaleFactor: 1 })
    context.setDefaultTimeout(bound)
    const page = await context.newPage()
    await page.goto(`${service.url}/#/login`)
    await page.getByTestId("login-submit").waitFor()
    await page.screenshot({ path: join(out, `login-${device}.png`) })
    await logIn(page, service.url, service.user)
    for (const [name, route, ready] of pages) {
      await page.goto(`${service.url}/${route}`)
      await page.locator(ready).first().waitFor()
      await page.screenshot({ path: join(out, `${name}-${device}.png`), fullPage: name === "job" })
      console.log(`docs/ui/${name}-${device}.png`)
    }
    await context.close()
  }
} finally {
  await browser.close()
  await service.stop()
}
