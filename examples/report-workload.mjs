// A stand-in training script in Node that reports back to the job service through @dispatch/report, as a real
// workload does: the library reads the report URL, the job id and the token from the environment; the script reads
// its job document (the values), "trains" for `epochs` epochs, prints each epoch, and logs its lines and a loss per
// step. Each call returns at once; the library sends in batches in the background, and only node rank 0 reports.
// `dispatch demo service --exec` runs it as the job's pod where there is no python3; any cluster could run it in a
// node image with @dispatch/report installed. Outside a job it trains and prints, and reports nothing.
import { close, log, logMetric, logMetrics, stats } from "@dispatch/report"

const env = process.env
// The job document arrives in numbered chunks (DIOPTRA_JOB_DOCUMENT_0...), its count in DIOPTRA_JOB_DOCUMENT_CHUNKS.
const chunks = Number(env.DIOPTRA_JOB_DOCUMENT_CHUNKS ?? 0)
const document = chunks > 0 ? JSON.parse(Array.from({ length: chunks }, (_, i) => env[`DIOPTRA_JOB_DOCUMENT_${i}`] ?? "").join("")) : {}
const epochs = Math.max(1, Math.min(100, Number(document.values?.epochs ?? 3) || 3))
const stepsPerEpoch = 20
const rank = env.PET_NODE_RANK ?? "0"
const pod = env.HOSTNAME ?? "unknown"

const say = (message) => {
  console.log(message)
  log("INFO", message, "report-workload")
}

say(`workload started on pod ${pod} (pid ${process.pid}, node rank ${rank}), ${epochs} epochs`)
for (let epoch = 1; epoch <= epochs; epoch++) {
  let loss = 0
  for (let i = 0; i < stepsPerEpoch; i++) {
    const step = (epoch - 1) * stepsPerEpoch + i
    loss = Number((2.5 / (1 + step / stepsPerEpoch)).toFixed(4))
    logMetric("loss", loss, step)
    // A training step awaits its work; the reporter sends in between.
    await new Promise((resolve) => setImmediate(resolve))
  }
  logMetrics({ epoch_loss: loss }, epoch)
  say(`epoch ${epoch}/${epochs}: loss ${loss}`)
}
say("training done")

// Without this the buffer is still flushed when the process is about to exit; closing here lets it say what it sent.
await close(10_000)
const { sent } = stats()
if (sent.batches > 0) console.log(`reported ${sent.logs} log lines and ${sent.metrics} metrics to ${env.DIOPTRA_SERVICE_URL} in ${sent.batches} batches`)
