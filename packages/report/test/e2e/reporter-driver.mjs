// Drives @dispatch/report (its build) as a training loop would, for the report tests: reads a plan (JSON, argv[2]),
// makes its calls, each step a turn of the event loop as an async training step is, measures each call, and prints
// what it saw as JSON lines. The plan's options are already this library's (camelCase, milliseconds); `close` and
// `pace` are seconds, as in every driver. The service's variables come from the environment.
import { performance } from "node:perf_hooks"
import { reporter } from "@dispatch/report"

const plan = JSON.parse(process.argv[2] ?? "{}")
const options = plan.options ?? {}
const report = Object.keys(options).length > 0 ? reporter(options) : reporter()
const durations = []
const timed = (call) => {
  const started = performance.now()
  const result = call()
  durations.push((performance.now() - started) / 1000)
  // A call answers nothing, so there is nothing to await: it is done when it returns.
  if (result !== undefined) throw new Error(`a call answered ${String(result)}`)
}
const step = () => (plan.pace ? new Promise((resolve) => setTimeout(resolve, plan.pace * 1000)) : new Promise((resolve) => setImmediate(resolve)))

for (let i = 0; i < (plan.metrics ?? 0); i++) {
  timed(() => report.logMetric("loss", 1 / (i + 1), i))
  await step()
}
for (let i = 0; i < (plan.logs ?? 0); i++) {
  timed(() => report.log("INFO", `line ${i}`, "driver"))
  await step()
}
for (const [i, values] of (plan.many ?? []).entries()) timed(() => report.logMetrics(values, i))
for (const [level, message] of plan.lines ?? []) timed(() => report.log(level, message))
if (plan.specials) for (const [i, value] of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 1e300].entries()) timed(() => report.logMetric("special", value, i))
for (const [name, value, at] of plan.bad ?? []) timed(() => report.logMetric(name, value, at))

console.log(JSON.stringify({ logged: true }))
if (plan.wait_for_go) {
  await new Promise((resolve) => process.stdin.once("data", resolve))
  process.stdin.destroy()
}
if (plan.close !== undefined) {
  const started = performance.now()
  const closed = await report.close(plan.close * 1000)
  console.log(JSON.stringify({ closed, close_s: (performance.now() - started) / 1000 }))
}
console.log(JSON.stringify({ calls: durations.length, max_call_s: Math.max(0, ...durations), stats: report.stats() }))
