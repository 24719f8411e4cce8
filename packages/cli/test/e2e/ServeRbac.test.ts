// `dispatch serve` as a platform team runs it in a cluster that enforces RBAC: `dispatch sim serve --rbac` (real
// processes), `dispatch rbac`'s exact output applied with kubectl as the admin, and the service started with the
// ServiceAccount's kubeconfig and nothing more. A Dioptra job runs end to end in plain and Kueue mode; with each
// single rule (each verb of each rule) of the Role and ClusterRole taken away, the missing permission is named
// where an operator looks, and nothing is left half-started; another namespace's ServiceAccount is refused in ours.
// The Role removals run side by side, each in a namespace of its own bound to the one ServiceAccount, under one
// service per mode; a ClusterRole removal touches every namespace, so each has a service of its own.
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { randomBytes } from "node:crypto"
import { describe, expect, it } from "vitest"
import { parse, parseAllDocuments, stringify } from "yaml"
import { background, dispatch, example, kubectl, processTestMs } from "../DispatchBinary.ts"
import { useServeFixture } from "./ServeFixture.ts"
import { allJobs, serviceAt } from "../ServiceCalls.ts"
import { ExitCode } from "../../src/ExitCode.ts"
import { Effect } from "effect"

const namespace = "ml-team"
const account = "dispatch"
const context = `system:serviceaccount:${namespace}:${account}`
const { dir, token, tokensFile, started } = useServeFixture("dispatch-rbac-")
const at = serviceAt(token)

type Mode = "plain" | "kueue"

/** A simulator with RBAC on, its admin kubeconfig, and the ServiceAccount's own kubeconfig (kubectl's `config view --minify --flatten`). */
const rbacCluster = async (mode: Mode, tag: string, runtimes: ReadonlyArray<string> = []) => {
  const admin = join(dir, `${tag}.kubeconfig`)
  const sim = await background(["sim", "serve"], ["--rbac", "--service-account", `${namespace}/${account}`, "--service-account", `other/${account}`, "--kubeconfig-out", admin, "--mode", mode, "--run-time", "1", "--runtime", example("runtime.yaml"), ...runtimes])
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
  const applied = await kubectl(["--kubeconfig", kubeconfig, "apply", "--server-side", "--force-conflicts", "-f", file])
  expect(applied.stderr).not.toMatch(/error/i)
  expect(applied.code).toBe(0)
}

/** The queue backend of the bundled example config for the mode. */
const backendOf = (mode: Mode) => {
  const config = JSON.parse(readFileSync(example(mode === "kueue" ? "config-kueue.json" : "config.json"), "utf8"))
  return { config, runtime: config.runtimes[0], image: "example/worker:1" }
}

/** A queue with the backend, an entrypoint and an experiment (their names ending in `suffix`); the body of a job submission. */
const experimentOn = async (url: string, backend: ReturnType<typeof backendOf>, suffix = "") =>
  at(url).typed((c) =>
    Effect.gen(function* () {
      const queue = yield* c.queues.create({ payload: { name: `gpu${suffix}`, description: "", backend } })
      const entrypoint = yield* c.entrypoints.create({
        payload: { name: `train${suffix}`, description: "", queues: [queue.id], parameters: [], artifactParameters: [], taskGraph: { train: { fit: {} } }, command: ["python", "-m", "train"] } as never
      })
      const experiment = yield* c.experiments.create({ payload: { name: `e${suffix}`, entrypoints: [entrypoint.id] } })
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

/** `f` of each item, one after the other. */
const oneByOne = async <A, B>(items: ReadonlyArray<A>, f: (a: A) => Promise<B>): Promise<Array<B>> => {
  const out: Array<B> = []
  for (const a of items) out.push(await f(a))
  return out
}

const serveWith = (kubeconfig: string, data: string) => background(["serve"], ["--tokens", tokensFile, "--kubeconfig", kubeconfig, "--data-dir", data], undefined, { DATABASE_URL: "" })

describe.each(["plain", "kueue"] as const)("dispatch serve with exactly `dispatch rbac --mode %s`", (mode) => {
  it("dispatches a Dioptra job end to end as the ServiceAccount", async () => {
    const { admin, own } = await rbacCluster(mode, `ok-${mode}`, [clusterRuntimeFile])
    await apply(admin, await printedRbac(mode))
    // `dispatch runtimes` lists ClusterTrainingRuntimes cluster-wide when it may; the printed rules grant only `get`,
    // and it reads the configured ones one by one: each runtime the config names is found and usable.
    const configFile = join(dir, `config-${mode}.json`)
    writeFileSync(configFile, JSON.stringify({ ...backendOf(mode).config, runtimes: [...backendOf(mode).config.runtimes, { kind: "ClusterTrainingRuntime", name: clusterRuntime }] }))
    const runtimes = await dispatch(["runtimes", "--kubeconfig", own, "--config", configFile, "-o", "json"])
    expect(runtimes.stderr).toBe("")
    expect(JSON.parse(runtimes.stdout)).toMatchObject([
      { kind: "TrainingRuntime", name: "dispatch-torch", configured: true, onCluster: true, usable: true },
      { kind: "ClusterTrainingRuntime", name: clusterRuntime, configured: true, onCluster: true, usable: true }
    ])
    const service = await serveWith(own, join(dir, `data-ok-${mode}`))
    started.push(service)
    const { queue, experiment, job } = await experimentOn(service.url, backendOf(mode))
    const proven = await until("the queue's gate", () => at(service.url).typed((c) => c.queues.read({ params: { id: queue } })), (q) => q.gate.state !== "proving" && q.gate.state !== "unproven")
    expect(proven.gate).toMatchObject({ state: "open" })
    const submitted = await at(service.url).typed((c) => c.jobs.create({ params: { id: experiment }, payload: job as never }))
    const finished = await until("the job", () => allJobs(at(service.url)), (jobs) => jobs.every((j) => j.status === "finished" || j.status === "failed"))
    expect(finished.map((j) => [j.id, j.status])).toEqual([[submitted.id, "finished"]])
    const trainJobs = await kubectl(["--kubeconfig", admin, "get", "trainjobs", "-n", namespace, "-o", "json"])
    expect(JSON.parse(trainJobs.stdout).items.map((t: any) => t.metadata.name)).toEqual([finished[0]?.dispatch.trainJob?.name])
    expect(await service.stop()).toBe(ExitCode.ok)
  }, processTestMs)
})


// The same runtime as a ClusterTrainingRuntime, listed in the queues' configs beside the example's TrainingRuntime,
// so that the probe reads one (the ClusterRole's rule is then needed).
const clusterRuntime = "dispatch-torch-cluster"
const clusterRuntimeFile = join(dir, "cluster-runtime.yaml")
writeFileSync(
  clusterRuntimeFile,
  readFileSync(example("runtime.yaml"), "utf8")
    .replace("kind: TrainingRuntime", "kind: ClusterTrainingRuntime")
    .replace("name: dispatch-torch\n  namespace: ml-team", `name: ${clusterRuntime}`)
)

/** Where the refusal of one rule shows: the queue's gate proof; the first open of a job (the probe never opens one);
 * status sync (a job already running); the sweeper; or `dispatch logs` (the service never reads pods). */
type Seen = "gate" | "open" | "sync" | "sweep" | "logs"

// Every verb of every rule `dispatch rbac` prints, per mode, and where its absence shows. A rule printed that is not
// here fails the test: a new permission must say where it is proven.
const eitherMode: Readonly<Record<string, Seen>> = {
  "list pods": "logs",
  "get pods/log": "logs",
  "get trainingruntimes": "gate",
  "list trainingruntimes": "sweep",
  "create trainingruntimes": "gate",
  "patch trainingruntimes": "gate",
  "delete trainingruntimes": "sweep",
  "get trainjobs": "gate",
  "list trainjobs": "sync",
  "create trainjobs": "gate",
  "delete trainjobs": "gate",
  "get clustertrainingruntimes": "gate"
}
const seenWhere: Readonly<Record<Mode, Readonly<Record<string, Seen>>>> = {
  // Plain mode opens a job by patching its TrainJob's spec.suspend.
  plain: { ...eitherMode, "patch trainjobs": "open" },
  // Kueue mode sees the Workload appear (the probe too), and opens by patching its gate and its admission check.
  kueue: { ...eitherMode, "list workloads": "gate", "patch workloads": "open", "patch workloads/status": "open" }
}

interface Removal {
  readonly role: "Role" | "ClusterRole"
  readonly verb: string
  readonly group: string
  readonly resource: string
  /** The printed objects with that one verb (or the rule, its last verb) taken out. */
  readonly objects: ReadonlyArray<Record<string, any>>
}

/** Each single verb of each rule of the printed Role and ClusterRole, taken out in turn. */
const removals = (printed: string): ReadonlyArray<Removal> => {
  const objects = parseAllDocuments(printed).map((d) => d.toJS() as Record<string, any>)
  return objects.flatMap((object, i) =>
    (object["rules"] ?? []).flatMap((rule: any, j: number) =>
      rule.verbs.map((verb: string): Removal => {
        const rules = object["rules"].flatMap((r: any, k: number) => (k !== j ? [r] : r.verbs.length === 1 ? [] : [{ ...r, verbs: r.verbs.filter((v: string) => v !== verb) }]))
        return { role: object["kind"], verb, group: rule.apiGroups[0], resource: rule.resources[0], objects: objects.map((o, m) => (m === i ? { ...o, rules } : o)) }
      })
    )
  )
}

/** The permission as the service names it: `missing permission: create trainjobs.trainer.kubeflow.org in namespace ml-team`. */
const named = (r: Removal, where: string): string => {
  const [resource, subresource] = r.resource.split("/")
  const scope = r.role === "ClusterRole" ? " (cluster-wide)" : ` in namespace ${where}`
  return `missing permission: ${r.verb} ${resource}${r.group === "" ? "" : `.${r.group}`}${subresource === undefined ? "" : ` --subresource=${subresource}`}${scope}`
}

const objectsOn = async (kubeconfig: string, kinds: string, where: string = namespace): Promise<ReadonlyArray<any>> => {
  const got = await kubectl(["--kubeconfig", kubeconfig, "get", kinds, "-n", where, "-o", "json"])
  expect(got.code).toBe(0)
  return JSON.parse(got.stdout).items
}

// An orphan runtime copy, as a Start that died between its copy and its TrainJob leaves one: the sweeper's to delete.
const orphanJob = "01JD8X2Q4M7N9P3R5S6T8V0W1A"
const orphan = (where: string) => ({
  ...parse(readFileSync(example("runtime.yaml"), "utf8")),
  metadata: { name: `dj-${orphanJob.toLowerCase()}-s1`, namespace: where, labels: { "dispatch.phpboyscout.uk/job-id": orphanJob } }
})

/** One rule's verb taken away, and where the case runs: a namespace of its own, so that a refusal there touches no
 * other case's queue, objects or log lines. */
interface Case {
  readonly removal: Removal
  readonly seen: Seen
  readonly where: string
  readonly needle: string
  readonly what: string
}

/** The case's namespace: two digits, so that no case's namespace begins another's (a log line is told apart by it). */
const caseNamespace = (n: number): string => `removed-${String(n).padStart(2, "0")}`

/** The printed objects a case gets in its own namespace: the Role and its RoleBinding. */
const movesIntoCase = (object: Record<string, any>): boolean => object["kind"] === "Role" || object["kind"] === "RoleBinding"

/** What the case's namespace holds: the example runtime, and the printed Role (less the verb, when it is the Role's)
 * and RoleBinding moved there; the binding's subject stays the service's ServiceAccount in ml-team. A sweeper case
 * also gets an orphan copy. */
const namespaceObjects = (c: Case): ReadonlyArray<Record<string, any>> => {
  const runtime = parse(readFileSync(example("runtime.yaml"), "utf8"))
  return [
    { apiVersion: "v1", kind: "Namespace", metadata: { name: c.where } },
    { ...runtime, metadata: { ...runtime.metadata, namespace: c.where } },
    ...c.removal.objects.filter(movesIntoCase).map((o) => ({ ...o, metadata: { ...o.metadata, namespace: c.where } })),
    ...(c.seen === "sweep" ? [orphan(c.where)] : [])
  ]
}

/** The objects outside the case's namespace (the ServiceAccount, the ClusterRole less the verb when it is its, the
 * ClusterRoleBinding), as one text: cases with the same can share one cluster and so one service. */
const sharedObjects = (c: Case): string =>
  c.removal.objects
    .filter((o) => !movesIntoCase(o))
    .map((o) => stringify(o))
    .join("---\n")

/** The cases grouped by their shared objects: every Role removal in one group (each in its namespace), each
 * ClusterRole removal, which no namespace can isolate, in a group of its own. */
const groupedByCluster = (cases: ReadonlyArray<Case>): ReadonlyArray<ReadonlyArray<Case>> => {
  const groups = new Map<string, Array<Case>>()
  for (const c of cases) groups.set(sharedObjects(c), [...(groups.get(sharedObjects(c)) ?? []), c])
  return [...groups.values()]
}

describe.each(["plain", "kueue"] as const)("with one rule of `dispatch rbac --mode %s` taken away", (mode) => {
  it("the gate proof, or the first call that needs it, names the missing permission; nothing is left half-started", async () => {
    const { admin, own } = await rbacCluster(mode, `removed-${mode}`, [clusterRuntimeFile])
    const printed = await printedRbac(mode)
    const taken = removals(printed)
    expect(taken.map((r) => `${r.verb} ${r.resource}`).sort()).toEqual(Object.keys(seenWhere[mode]).sort())
    const cases = taken.map((removal, i): Case => {
      const where = caseNamespace(i + 1)
      return { removal, seen: seenWhere[mode][`${removal.verb} ${removal.resource}`]!, where, needle: named(removal, where), what: `${removal.role} without ${removal.verb} ${removal.resource} (namespace ${where})` }
    })
    const groups = groupedByCluster(cases)
    // Every Role removal shares one service; each ClusterRole removal has its own.
    expect(groups.map((g) => g.length).sort((a, b) => a - b)).toEqual([
      ...cases.filter((c) => c.removal.role === "ClusterRole").map(() => 1),
      cases.filter((c) => c.removal.role === "Role").length
    ])
    const backend = backendOf(mode)
    // Short timeouts: the sweeper leaves a copy alone for 2 × callBound + workload (here 40 s), and a probe that may
    // not see its Workload gives up after `workload`.
    const configIn = (where: string) => ({
      ...backend.config,
      namespace: where,
      runtimes: [...backend.config.runtimes, { kind: "ClusterTrainingRuntime", name: clusterRuntime }],
      timeouts: { call: "10s", callBound: "10s", workload: "20s" }
    })
    for (const [g, group] of groups.entries()) {
      await kubectl(["--kubeconfig", admin, "delete", "clusterrole", "-l", "app.kubernetes.io/name=dispatch"])
      await apply(admin, [sharedObjects(group[0]!), ...group.flatMap(namespaceObjects).map((o) => stringify(o))].join("---\n"))
      const service = await background(
        ["serve"],
        ["--tokens", tokensFile, "--kubeconfig", own, "--data-dir", join(dir, `data-${mode}-${g}`), ...(group.some((c) => c.seen === "sweep") ? ["--sweep-grace", "1s"] : [])],
        undefined,
        { DATABASE_URL: "" }
      )
      try {
        // Every case's queue, entrypoint and experiment first, so that the gate proofs run side by side.
        const placed = await oneByOne(group, async (c) => ({ ...c, ...(await experimentOn(service.url, { ...backend, config: configIn(c.where) }, `-${c.where}`)) }))
        // The queues of the cases whose queue stays open, once proven open: they stay open while proven again.
        const opened = new Set<number>()
        const readQueue = (queue: number) => at(service.url).typed((client) => client.queues.read({ params: { id: queue } }))
        // /readyz lists the queues not open (a case's, while first proven or once closed), never one proven open whose
        // case's permission is only needed later.
        const readyz = async () => {
          const ready = (await (await fetch(`${service.url}/readyz`)).json()) as { ready: boolean; queues: ReadonlyArray<{ id: number; state: string; reason: string }> }
          expect(ready.ready).toBe(true)
          expect(ready.queues.filter((q) => opened.has(q.id))).toEqual([])
          return ready
        }
        // Each case runs side by side with the others, as it ran alone: a queue not open is proven again a minute
        // later, so each case looks soon after its own refusal, and waits for what a new proof may hide for a while.
        const run = async ({ seen, needle, what, where, queue, experiment, job }: (typeof placed)[number]) => {
          const proven = await until(`${what}: the gate`, () => readQueue(queue), (q) => q.gate.state !== "proving" && q.gate.state !== "unproven")
          const submitted = await at(service.url).typed((client) => client.jobs.create({ params: { id: experiment }, payload: job as never }))
          const readJob = () => at(service.url).typed((client) => client.jobs.read({ params: { id: submitted.id } }))
          const logged = () => service.stderr().split("\n").filter((line) => line.includes(needle))
          if (seen === "gate" || seen === "open") {
            if (seen === "gate") {
              expect(proven.gate.state, what).not.toBe("open")
              expect(proven.gate.reason, what).toContain(needle)
              // The job waits for its queue: never claimed, nothing of it on the cluster.
              const waiting = await readJob()
              expect([waiting.status, waiting.dispatch.attempts], what).toEqual(["queued", 0])
            } else {
              expect(proven.gate.state, what).toBe("open")
              // The job's first open is refused: the queue closes naming it, and the job waits with its TrainJob held.
              const refused = await until(`${what}: the job's open`, readJob, (j) => (j.dispatch.reason ?? "").includes(needle))
              expect(refused.status, what).toBe("queued")
              expect((await readQueue(queue)).gate.reason, what).toContain(needle)
            }
            const listed = await until(`${what}: /readyz`, readyz, (ready) => ready.queues.some((q) => q.id === queue && q.reason.includes(needle)))
            expect(listed.queues.filter((q) => q.id === queue).map((q) => q.reason), what).toEqual([expect.stringContaining(needle)])
            await until(`${what}: the log`, async () => logged(), (lines) => lines.length > 0)
            // Nothing runs half-started: every TrainJob in the case's namespace (the probe's, when it may not be
            // deleted, or the job's, when it may not be opened) is suspended, and has no pods.
            const trainJobs = await objectsOn(admin, "trainjobs", where)
            for (const t of trainJobs) expect([t.metadata.name, t.spec.suspend], what).toEqual([t.metadata.name, true])
            expect(await objectsOn(admin, "pods", where), what).toEqual([])
            // The job's own TrainJob and runtime copy: none while its queue is closed, both (held) once its open was refused.
            const probeName = "dj-00000000000000000000000000-s1"
            const jobObjects = [...trainJobs, ...(await objectsOn(admin, "trainingruntimes", where))].filter((o) => o.metadata.name !== probeName && o.metadata.name !== "dispatch-torch")
            expect(jobObjects.length, what).toBe(seen === "open" ? 2 : 0)
          } else {
            expect(proven.gate.state, what).toBe("open")
            opened.add(queue)
            if (seen === "sweep") {
              await until(`${what}: the sweeper's log`, async () => logged(), (lines) => lines.length > 0)
              expect(logged()[0], what).toMatch(/^dispatch sweeper: /)
            } else if (seen === "sync") {
              // The job was opened; following it is refused, said once in the log.
              await until(`${what}: the status sync's log`, async () => logged(), (lines) => lines.length > 0)
              expect(logged()[0], what).toMatch(/^dispatch: status sync: queue \d+: /)
            } else {
              const finished = await until(`${what}: the job`, readJob, (j) => j.status === "finished" || j.status === "failed")
              expect(finished.status, what).toBe("finished")
              const logs = await dispatch(["logs", "--kubeconfig", admin, "--context", context, "-n", where, finished.dispatch.trainJob?.name ?? ""])
              expect(logs.code, what).not.toBe(ExitCode.ok)
              expect(logs.stderr, what).toContain(needle)
            }
          }
        }
        // Every case to its end, then the first failure (vitest shows its diff); a rejection is never left unawaited.
        const failed = (await Promise.allSettled(placed.map(run))).flatMap((r) => (r.status === "rejected" ? [r.reason] : []))
        if (failed.length > 0) throw failed[0]
        await readyz()
      } finally {
        expect(await service.stop()).toBe(ExitCode.ok)
      }
    }
  }, 3_600_000)
})

describe("a ServiceAccount bound in another namespace", () => {
  it("is refused (403) in ours, by the API server and by dispatch's probe, while its own namespace answers", async () => {
    const { sim, admin } = await rbacCluster("plain", "other")
    await apply(admin, await printedRbac("plain"))
    // The other team's dispatch, with exactly its own printed permissions in its own namespace.
    const theirs = await dispatch(["rbac", "-n", "other", "--service-account", account])
    await apply(admin, theirs.stdout)
    const kubeconfig = parse(readFileSync(admin, "utf8")) as { users: Array<{ name: string; user: { token?: string } }> }
    const token = kubeconfig.users.find((u) => u.name === `system:serviceaccount:other:${account}`)?.user.token ?? ""
    expect(token).toMatch(/^sim-sa\./)
    const call = async (method: string, ns: string, body?: unknown) => {
      const answer = await fetch(`${sim.url}/apis/trainer.kubeflow.org/v1alpha1/namespaces/${ns}/trainjobs`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      return { code: answer.status, body: (await answer.json()) as { reason?: string; message?: string; details?: unknown } }
    }
    expect((await call("GET", "other")).code).toBe(200)
    const trainJob = { apiVersion: "trainer.kubeflow.org/v1alpha1", kind: "TrainJob", metadata: { name: "intruder" }, spec: { runtimeRef: { name: "dispatch-torch" } } }
    for (const [method, body] of [["GET", undefined], ["POST", trainJob]] as const) {
      const refused = await call(method, namespace, body)
      expect([refused.code, refused.body.reason, refused.body.details]).toEqual([403, "Forbidden", { group: "trainer.kubeflow.org", kind: "trainjobs" }])
      expect(refused.body.message).toContain(`User "system:serviceaccount:other:${account}" cannot ${method === "GET" ? "list" : "create"} resource "trainjobs" in API group "trainer.kubeflow.org" in the namespace "${namespace}"`)
    }
    // dispatch, given the other team's context, proves nothing in our namespace and says which permission it lacks.
    const probed = await dispatch(["probe", "--kubeconfig", admin, "--context", `system:serviceaccount:other:${account}`, "--config", example("config.json")])
    expect(probed.code).not.toBe(ExitCode.ok)
    expect(probed.stdout + probed.stderr).toContain(`missing permission: get trainingruntimes.trainer.kubeflow.org in namespace ${namespace}`)
    expect(await objectsOn(admin, "trainjobs")).toEqual([])
  }, processTestMs)
})
