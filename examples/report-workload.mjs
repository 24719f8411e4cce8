// A stand-in training script that reports back to the job service as a real workload does: it reads
// the report URL, its job id and token, and its job document (the values) from its environment, "trains"
// for `epochs` epochs, prints each step and posts its log lines and a loss per epoch. Only node rank 0
// reports. Plain Node (18 or later), no dependencies: `dispatch demo service --exec` runs it as the
// job's pod, and any cluster could run it in a node image.
const env = process.env
const base = env.DIOPTRA_SERVICE_URL
const token = env.DIOPTRA_REPORT_TOKEN
const job = env.DIOPTRA_JOB_ID
const missing = [["DIOPTRA_SERVICE_URL", base], ["DIOPTRA_REPORT_TOKEN", token], ["DIOPTRA_JOB_ID", job]].filter(([, v]) => !v).map(([k]) => k)
if (missing.length > 0) {
  console.error(`report-workload: ${missing.join(", ")} not set: not started by the job service`)
  process.exit(2)
}

// The job document arrives in numbered chunks (DIOPTRA_JOB_DOCUMENT_0...), its count in DIOPTRA_JOB_DOCUMENT_CHUNKS.
const chunks = Number(env.DIOPTRA_JOB_DOCUMENT_CHUNKS ?? 0)
const document = chunks > 0 ? JSON.parse(Array.from({ length: chunks }, (_, i) => env[`DIOPTRA_JOB_DOCUMENT_${i}`] ?? "").join("")) : {}
const epochs = Math.max(1, Math.min(100, Number(document.values?.epochs ?? 3) || 3))
const rank = env.PET_NODE_RANK ?? "0"
const pod = env.HOSTNAME ?? "unknown"

const post = async (path, body) => {
  const response = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  if (!response.ok) throw new Error(`POST ${path} answered ${response.status}: ${await response.text()}`)
}

const lines = []
const say = (message) => {
  console.log(message)
  lines.push(message)
}

say(`workload started on pod ${pod} (pid ${process.pid}, node rank ${rank}), ${epochs} epochs`)
const losses = []
for (let epoch = 1; epoch <= epochs; epoch++) {
  const loss = Number((2.5 / (epoch + 1)).toFixed(4))
  losses.push(loss)
  say(`epoch ${epoch}/${epochs}: loss ${loss}`)
}
say("training done")

if (rank === "0") {
  try {
    await post(`/jobs/${job}/log`, { data: lines.map((message) => ({ severity: "INFO", loggerName: "report-workload", message })) })
    for (const [i, loss] of losses.entries()) await post(`/jobs/${job}/metrics`, { name: "loss", step: i + 1, value: loss })
  } catch (error) {
    console.error(`report-workload: ${error.message}`)
    process.exit(1)
  }
  console.log(`reported ${lines.length} log lines and ${losses.length} metrics to ${base}`)
}
