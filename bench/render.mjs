// Renders the bundled example (examples/request.json, config.json, runtime.yaml) as fast as it can and
// compares with a baseline of JSON.parse(JSON.stringify(manifests)) of the same output, in one run.
// Target (issue 2): one render costs at most 5x the baseline.
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { parse } from "yaml"
import { decodeConfig, decodeStartRequest, renderStart } from "../packages/render/dist/index.js"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const read = (file) => readFileSync(join(root, "examples", file), "utf8")
const unwrap = (result, what) => {
  if (result._tag !== "Success") throw new Error(`${what}: ${JSON.stringify(result.failure)}`)
  return result.success
}

const request = unwrap(decodeStartRequest(JSON.parse(read("request.json"))), "request")
const config = unwrap(decodeConfig(JSON.parse(read("config.json"))), "config")
const runtime = parse(read("runtime.yaml"))
const manifests = unwrap(renderStart(request, config, runtime), "render")

// Runs `fn` in batches until `ms` have passed; returns operations per second.
const rate = (fn, ms) => {
  let ops = 0
  let sink = 0
  const start = process.hrtime.bigint()
  const until = start + BigInt(ms) * 1_000_000n
  let now = start
  while (now < until) {
    for (let i = 0; i < 500; i++) sink += fn() === undefined ? 0 : 1
    ops += 500
    now = process.hrtime.bigint()
  }
  if (sink !== ops) throw new Error("a run returned nothing")
  return ops / (Number(now - start) / 1e9)
}

const renderOnce = () => renderStart(request, config, runtime)
const baselineOnce = () => JSON.parse(JSON.stringify(manifests))
const decodeAndRender = () => renderStart(unwrap(decodeStartRequest(request), "request"), config, runtime)

rate(renderOnce, 300)
rate(baselineOnce, 300)
const renders = rate(renderOnce, 1500)
const baseline = rate(baselineOnce, 1500)
const decoded = rate(decodeAndRender, 1000)
const ratio = baseline / renders
const fmt = (n) => Math.round(n).toLocaleString("en-US")

console.log(`render: ${fmt(renders)} renders/s of the example; baseline JSON.parse(JSON.stringify(manifests)): ${fmt(baseline)}/s`)
console.log(`render costs ${ratio.toFixed(2)}x the baseline (target <= 5x): ${ratio <= 5 ? "met" : "NOT met"}`)
console.log(`decode request + render: ${fmt(decoded)}/s`)
