// Wall time of the built `dispatch` binary, as a user runs it: a bare Node start as the baseline, help,
// render (no cluster), start on the embedded simulator, and the demo in both modes (its simulator's
// clock runs 20x faster than real time). Median of several runs each.
// Target (issue 6): `dispatch demo` finishes in a few seconds (here: at most 5 s).
import { spawnSync } from "node:child_process"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const binary = join(root, "packages", "cli", "bin", "dispatch.js")
const runs = 5

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

const time = (args) => {
  const samples = []
  for (let i = 0; i < runs; i++) {
    const began = process.hrtime.bigint()
    const run = spawnSync(process.execPath, args, { cwd: root, encoding: "utf8" })
    samples.push(Number(process.hrtime.bigint() - began) / 1e6)
    if (run.status !== 0) throw new Error(`${args.join(" ")} exited ${run.status}: ${run.stderr}`)
  }
  return median(samples)
}

const cases = [
  ["node -e 0 (baseline)", ["-e", "0"]],
  ["dispatch help", [binary, "help"]],
  ["dispatch render", [binary, "render", "--request", "examples/request.json", "--runtime", "examples/runtime.yaml"]],
  ["dispatch start --sim", [binary, "start", "--sim", "--request", "examples/request.json"]],
  ["dispatch demo (plain)", [binary, "demo"]],
  ["dispatch demo (kueue)", [binary, "demo", "--config", "examples/config-kueue.json"]]
]

const figures = cases.map(([name, args]) => [name, time(args)])
const baseline = figures[0][1]
for (const [name, ms] of figures) console.log(`${name.padEnd(24)} ${ms.toFixed(0).padStart(6)} ms  (${(ms / baseline).toFixed(1)}x a bare node start)`)
const demo = Math.max(figures[4][1], figures[5][1])
console.log(`demo target: at most 5000 ms; slowest mode ${demo.toFixed(0)} ms: ${demo <= 5000 ? "met" : "NOT met"}`)
