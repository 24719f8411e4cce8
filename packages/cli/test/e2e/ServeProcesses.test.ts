// Two `dispatch serve` processes on one PostgreSQL, dispatching to one `dispatch sim serve` process:
// separate OS processes, as a team would run them. Every job is claimed once, runs on its own TrainJob,
// and finishes.
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { testPostgres, type TestPostgres } from "../../../server/test/TestPostgres.ts"
import { background, example, kubectl, processTestMs } from "../DispatchBinary.ts"
import { Effect } from "effect"
import { withIdempotencyKey } from "../../../client/src/index.ts"
import { useServeFixture } from "./ServeFixture.ts"
import { allJobs, exampleExperiment, serviceAt } from "../ServiceCalls.ts"
import { readFileSync } from "node:fs"

const jobs = Number(process.env["DISPATCH_PROCESS_JOBS"] ?? 500)
let postgres: TestPostgres
// Registered before the processes' fixture: after hooks run last-registered first, so the services stop before
// their database goes.
beforeAll(async () => {
  postgres = await testPostgres()
}, processTestMs)
afterAll(async () => {
  await postgres?.release()
})
const { dir, token, tokensFile, started } = useServeFixture("dispatch-processes-")
const kubeconfig = join(dir, "sim.kubeconfig")

const at = serviceAt(token)

describe("two dispatch serve processes on one PostgreSQL", () => {
  it(`dispatch ${jobs} jobs submitted to both: each claimed once, each on its own TrainJob, all finished`, async () => {
    const sim = await background(["sim", "serve"], ["--kubeconfig-out", kubeconfig, "--runtime", example("runtime.yaml")])
    started.push(sim)
    const env = { DATABASE_URL: postgres.url }
    const a = await background(["serve"], ["--tokens", tokensFile, "--kubeconfig", kubeconfig], undefined, env)
    started.push(a)
    const b = await background(["serve"], ["--tokens", tokensFile, "--kubeconfig", kubeconfig], undefined, env)
    started.push(b)

    const config = JSON.parse(readFileSync(example("config.json"), "utf8"))
    const { experiment, job: body } = await exampleExperiment(at(a.url), at(b.url))
    // Each creation rejects if it is refused. Each carries its own Idempotency-Key, as a team submitting in bulk
    // would send it: a creation whose connection breaks is resent by the client and still makes one job.
    const submitted = await Promise.all(
      Array.from({ length: jobs }, (_, i) =>
        at(i % 2 === 0 ? a.url : b.url).typed((c) => c.jobs.create({ params: { id: experiment }, payload: body as never }).pipe(withIdempotencyKey(`bulk-${i}`)))
      )
    )
    expect(submitted.map((s) => s.status)).toEqual(Array(jobs).fill("queued"))

    // Bounds for a machine far slower than an idle one, where this takes well under a minute.
    const deadline = Date.now() + 420_000
    let listed: Array<any> = []
    for (;;) {
      listed = await allJobs(at(a.url))
      if (listed.length === jobs && listed.every((j) => j.status === "finished" || j.status === "failed")) break
      if (Date.now() > deadline) break
      await new Promise((resolve) => setTimeout(resolve, 500))
    }
    expect(listed.map((j) => j.status)).toEqual(Array(jobs).fill("finished"))
    // Claimed once each: a second claim by the other process would show as a second attempt.
    expect(listed.map((j) => j.dispatch.attempts)).toEqual(Array(jobs).fill(1))
    const names = new Set(listed.map((j) => j.dispatch.trainJob.name))
    expect(names.size).toBe(jobs)
    // The cluster holds exactly those TrainJobs (the probes removed theirs).
    const onCluster = await kubectl(["--kubeconfig", kubeconfig, "get", "trainjobs", "-n", config.namespace, "-o", "name"])
    expect(onCluster.code).toBe(0)
    expect(new Set(onCluster.stdout.trim().split("\n").map((l) => l.replace("trainjob.trainer.kubeflow.org/", "")))).toEqual(names)
  }, 480_000)

  it("a process killed (SIGKILL) mid-dispatch and restarted under its name: nothing lost, nothing doubled", async () => {
    const killJobs = 100
    const env = { DATABASE_URL: postgres.url }
    const args = ["--tokens", tokensFile, "--kubeconfig", kubeconfig]
    const a = await background(["serve"], [...args, "--instance", "proc-a"], undefined, env)
    const b = await background(["serve"], [...args, "--instance", "proc-b"], undefined, env)
    started.push(b)
    const config = JSON.parse(readFileSync(example("config.json"), "utf8"))
    const [queues, experiments] = await at(b.url).typed((c) => Effect.all([c.queues.list({ query: {} }), c.experiments.list({ query: {} })]))
    const [queue, experiment] = [queues.data[0]?.id, experiments.data[0]]
    if (queue === undefined || experiment === undefined || "error" in experiment) throw new Error("the first test's queue and experiment are gone")
    const before = new Set((await allJobs(at(b.url))).map((j) => j.id))
    const body = { entrypoint: experiment.entrypoints[0]?.id, queue, values: {}, timeout: "1h", description: "kill" }
    await Promise.all(Array.from({ length: killJobs }, () => at(b.url).typed((c) => c.jobs.create({ params: { id: experiment.id }, payload: body as never }))))
    // Kill A as soon as the jobs are being dispatched, then bring it back under its name.
    const deadline = Date.now() + 60_000
    while ((await allJobs(at(b.url))).filter((j) => !before.has(j.id) && j.status === "started").length < 10 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    a.child.kill("SIGKILL")
    await a.stop()
    started.push(await background(["serve"], [...args, "--instance", "proc-a"], undefined, env))

    let mine: Array<any> = []
    for (const until = Date.now() + 420_000; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 500))) {
      mine = (await allJobs(at(b.url))).filter((j) => !before.has(j.id))
      if (mine.length === killJobs && mine.every((j) => j.status === "finished" || j.status === "failed")) break
    }
    expect(mine.map((j) => j.status)).toEqual(Array(killJobs).fill("finished"))
    const names = new Set(mine.map((j) => j.dispatch.trainJob.name))
    expect(names.size).toBe(killJobs)
    const onCluster = await kubectl(["--kubeconfig", kubeconfig, "get", "trainjobs", "-n", config.namespace, "-o", "name"])
    const all = onCluster.stdout.trim().split("\n").map((l) => l.replace("trainjob.trainer.kubeflow.org/", ""))
    for (const name of names) expect(all.filter((n) => n === name)).toHaveLength(1)
  }, 600_000)
})
