// `dispatch serve` as a platform team runs it in a cluster that enforces RBAC: `dispatch sim serve --rbac` (real
// processes), `dispatch rbac`'s exact output applied with kubectl as the admin, and the service started with the
// ServiceAccount's kubeconfig and nothing more. A Dioptra job runs end to end in plain and Kueue mode; with each
// single rule (each verb of each rule) of the Role and ClusterRole taken away, the missing permission is named
// where an operator looks, and nothing is left half-started; another namespace's ServiceAccount is refused in ours.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parse } from "yaml"
import { hashToken } from "@dispatch/server"
import { background, dispatch, ensureBuilt, example, kubectl, processTestMs, type Served } from "../DispatchBinary.ts"
import { allJobs, serviceAt } from "../ServiceCalls.ts"
import { ExitCode } from "../../src/ExitCode.ts"
import { Effect } from "effect"

const namespace = "ml-team"
const account = "dispatch"
const context = `system:serviceaccount:${namespace}:${account}`
const dir = mkdtempSync(join(tmpdir(), "dispatch-rbac-"))
const token = randomBytes(24).toString("base64url")
const tokensFile = join(dir, "tokens.json")
const started: Array<Served> = []
const at = serviceAt(token)

beforeAll(async () => {
  await ensureBuilt()
  writeFileSync(tokensFile, JSON.stringify([{ name: "t", group: "team", access: "write", tokenHash: hashToken(token, randomBytes(16)) }]))
}, processTestMs)
afterAll(async () => {
  for (const s of started) await s.stop()
  rmSync(dir, { recursive: true, force: true })
})

type Mode = "plain" | "kueue"

/** A simulator with RBAC on, its admin kubeconfig, and the ServiceAccount's own kubeconfig (kubectl's `config view --minify --flatten`). */
const rbacCluster = async (mode: Mode, tag: string) => {
  const admin = join(dir, `${tag}.kubeconfig`)
  const sim = await background(["sim", "serve"], ["--rbac", "--service-account", `${namespace}/${account}`, "--service-account", `other/${account}`, "--kubeconfig-out", admin, "--mode", mode, "--run-time", "1", "--runtime", example("runtime.yaml")])
  started.push(sim)
  const own = join(dir, `${tag}-sa.kubeconfig`)
  const view = await kubectl(["--kubeconfig", admin, "config", "view", "--minify", "--flatten", "--context", context])
  expect(view.code).toBe(0)
  writeFileSync(own, view.stdout)
  return { sim, admin, own }
}

/** `dispatch rbac`'s output for the mode, parsed, and the same applied with kubectl as the admin. */
const printedRbac = async (mode: Mode) => {
  const printed = await dispatch(["rbac", "--mode", mode, "-n", namespace, "--service-account", account])
  expect(printed.code).toBe(ExitCode.ok)
  return printed.stdout
}

const apply = async (kubeconfig: string, manifest: string) => {
  const file = join(dir, `apply-${randomBytes(4).toString("hex")}.yaml`)
  writeFileSync(file, manifest)
  const applied = await kubectl(["--kubeconfig", kubeconfig, "apply", "-f", file])
  expect(applied.stderr).not.toMatch(/error/i)
  expect(applied.code).toBe(0)
}

/** The queue backend of the bundled example config for the mode. */
const backendOf = (mode: Mode) => {
  const config = JSON.parse(readFileSync(example(mode === "kueue" ? "config-kueue.json" : "config.json"), "utf8"))
  return { config, runtime: config.runtimes[0], image: "example/worker:1" }
}

/** A queue with the mode's backend, an entrypoint and an experiment; the body of a job submission. */
const experimentOn = async (url: string, mode: Mode) =>
  at(url).typed((c) =>
    Effect.gen(function* () {
      const queue = yield* c.queues.create({ payload: { name: "gpu", description: "", backend: backendOf(mode) } })
      const entrypoint = yield* c.entrypoints.create({
        payload: { name: "train", description: "", queues: [queue.id], parameters: [], artifactParameters: [], taskGraph: { train: { fit: {} } }, command: ["python", "-m", "train"] } as never
      })
      const experiment = yield* c.experiments.create({ payload: { name: "e", entrypoints: [entrypoint.id] } })
      return { queue: queue.id, experiment: experiment.id, job: { entrypoint: entrypoint.id, queue: queue.id, values: {}, timeout: "1h", description: "" } }
    })
  )

const until = async <A>(what: string, read: () => Promise<A>, done: (a: A) => boolean, ms = 240_000): Promise<A> => {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

const serveWith = (kubeconfig: string, data: string) => background(["serve"], ["--tokens", tokensFile, "--kubeconfig", kubeconfig, "--data-dir", data], undefined, { DATABASE_URL: "" })

describe.each(["plain", "kueue"] as const)("dispatch serve with exactly `dispatch rbac --mode %s`", (mode) => {
  it("dispatches a Dioptra job end to end as the ServiceAccount", async () => {
    const { admin, own } = await rbacCluster(mode, `ok-${mode}`)
    await apply(admin, await printedRbac(mode))
    const service = await serveWith(own, join(dir, `data-ok-${mode}`))
    started.push(service)
    const { queue, experiment, job } = await experimentOn(service.url, mode)
    const proven = await until("the queue's gate", () => at(service.url).typed((c) => c.queues.read({ params: { id: queue } })), (q) => q.gate.state !== "proving")
    expect(proven.gate).toMatchObject({ state: "open" })
    const submitted = await at(service.url).typed((c) => c.jobs.create({ params: { id: experiment }, payload: job as never }))
    const finished = await until("the job", () => allJobs(at(service.url)), (jobs) => jobs.every((j) => j.status === "finished" || j.status === "failed"))
    expect(finished.map((j) => [j.id, j.status])).toEqual([[submitted.id, "finished"]])
    const trainJobs = await kubectl(["--kubeconfig", admin, "get", "trainjobs", "-n", namespace, "-o", "json"])
    expect(JSON.parse(trainJobs.stdout).items.map((t: any) => t.metadata.name)).toEqual([finished[0]?.dispatch.trainJob?.name])
    expect(await service.stop()).toBe(ExitCode.ok)
  }, processTestMs)
})
