// docs/errors.md and the code agree: every case row of the page (Start's table and the lifecycle's) is
// provoked here on the in-process simulator and must end as its Result column says, and every case
// here has a row. The Cluster layer's table is checked against Start's mapping functions.
import { readFileSync } from "node:fs"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { type BackendConfig, trainJobName } from "@dispatch/render"
import { type Backend, type Gate, openBackend } from "../../../src/Backend.ts"
import { Cluster } from "../../../src/Cluster.ts"
import { ClusterError, ClusterErrorReason } from "../../../src/ClusterError.ts"
import { kindOfClusterError } from "../../../src/ClusterCause.ts"
import { isPassing, type StartError } from "../../../src/StartErrors.ts"
import { definiteWriteFailure, readFailure } from "../../../src/StartFailure.ts"
import { reasonOfStatus } from "../../../src/StatusMapping.ts"
import type { InFlight } from "../../../src/InFlight.ts"
import { TrainJobs } from "../../../src/ResourceKind.ts"
import { start } from "../../../src/Start.ts"
import { capabilities } from "../../../src/lifecycle/Capabilities.ts"
import { MAX_WRITES } from "../../../src/lifecycle/Converge.ts"
import { factory, factoryOf } from "../../../src/lifecycle/Factory.ts"
import { find, findMany } from "../../../src/lifecycle/Find.ts"
import { stop } from "../../../src/lifecycle/Stop.ts"
import { hold, open, release } from "../../../src/lifecycle/Transitions.ts"
import { RETRY_POLICY } from "../../../src/RetryPolicy.ts"
import { jobId, namespace, requestOf, torchRuntime } from "../../StartFixture.ts"
import { awaitState, inProcess, keyOf, started, type World, type WorldOptions } from "../../lifecycle/LifecycleFixture.ts"

/** One row of the page: its case name and the Result column. */
interface Row {
  readonly name: string
  readonly result: string
}

const page = readFileSync(new URL("../../../../../docs/errors.md", import.meta.url), "utf8")

/** The case rows of the page: `| \`case\` | Result | ...`. */
const rows: ReadonlyArray<Row> = page
  .split("\n")
  .filter((line) => line.startsWith("| `"))
  .map((line) => {
    const cells = line.split("|").map((c) => c.trim())
    return { name: (cells[1] ?? "").replaceAll("`", ""), result: cells[2] ?? "" }
  })

type Outcome = string
type Provoke = (world: World, config: BackendConfig) => Effect.Effect<Outcome, unknown, Cluster | InFlight>

/** The tag of the error an operation fails with, or "success"; with `reason`, a failure whose reasons do
 * not mention it says so, since several rows share a tag and differ in what happened. */
const outcomeWith = <A>(reason: string, effect: Effect.Effect<A, { readonly _tag: string; readonly reasons: ReadonlyArray<string> }, Cluster | InFlight>): Effect.Effect<Outcome, never, Cluster | InFlight> =>
  Effect.match(effect, {
    onFailure: (e) => (e.reasons.some((r) => r.includes(reason)) ? e._tag : `${e._tag} without "${reason}" in ${JSON.stringify(e.reasons)}`),
    onSuccess: () => "success"
  })

/** The tag of the error an operation fails with, or "success"; a failure whose cause is not of `kind` (or
 * absent, for "none") says so, since the cause is what tells a refusal from a passing fault. */
const outcomeWithCause = <A>(kind: "Passing" | "Refused" | "none", effect: Effect.Effect<A, StartError, Cluster | InFlight>): Effect.Effect<Outcome, never, Cluster | InFlight> =>
  Effect.match(effect, {
    onFailure: (e) => {
      const cause = e._tag === "ErrInvalid" ? undefined : e.cause
      return (cause?.kind ?? "none") === kind && isPassing(e) === (kind === "Passing") ? e._tag : `${e._tag} with cause ${JSON.stringify(cause)}`
    },
    onSuccess: () => "success"
  })

/** The tag of the error an operation fails with, or "success". */
const outcomeOf = <A>(effect: Effect.Effect<A, { readonly _tag: string }, Cluster | InFlight>): Effect.Effect<Outcome, never, Cluster | InFlight> =>
  Effect.match(effect, { onFailure: (e) => e._tag, onSuccess: () => "success" })

const gated = (config: BackendConfig, state: Exclude<Gate["state"], "open">): Backend => ({ config, gate: { state, reason: "probe said so" } })

const gateOf = (config: BackendConfig) => Effect.map(factoryOf(config), (b) => b.gate.state)

const name = (n: number) => trainJobName(jobId(n), 1)

/** Strips the job's labels from its TrainJob, making it someone else's. */
const unlabel = (world: World, n: number) =>
  Effect.sync(() => {
    const job = world.sim.system.get("trainjobs", namespace, name(n))!
    world.sim.system.update("trainjobs", { ...job, metadata: { ...job.metadata, labels: {} } })
  })

/** Deletes the TrainJob behind a finalizer, leaving it Stopping. */
const stopping = (world: World, n: number) =>
  Effect.gen(function* () {
    const job = world.sim.system.get("trainjobs", namespace, name(n))!
    world.sim.system.update("trainjobs", { ...job, metadata: { ...job.metadata, finalizers: ["example.com/keep"] } })
    yield* Effect.flatMap(Cluster, (c) => c.delete(TrainJobs, { namespace, name: name(n) }))
  })

const faultsOn = (verb: "get" | "patch" | "delete" | "create" | "list", resource: string, action: Record<string, unknown>, times?: number) => ({
  sim: { faults: [{ verb, resource, ...(times === undefined ? {} : { nth: 1, times }), action: action as never }] }
})

const broken = { ...torchRuntime("broken-torch"), spec: { mlPolicy: { numNodes: 1, torch: {} }, template: { spec: { replicatedJobs: [] } } } }

/** Starts job 1 on `backend` (open unless given). */
const startOne = (config: BackendConfig, request: unknown = requestOf(1), backend: Backend = openBackend(config)) => start(backend, request)

/** Changes the simulator's faults from now on. */
const faultsNow = (world: World, verb: "get" | "patch" | "delete" | "create", resource: string, action: Record<string, unknown>) =>
  Effect.sync(() => world.sim.setFaults([{ verb, resource, action: action as never }]))

/** Several fault rules at once. */
const faults = (...rules: ReadonlyArray<readonly [string, string, Record<string, unknown>]>) => ({
  sim: { faults: rules.map(([verb, resource, action]) => ({ verb: verb as never, resource, action: action as never })) }
})

/** Every case, with the world it needs and how to provoke it. */
const cases: Readonly<Record<string, readonly [WorldOptions, Provoke]>> = {
  "start-closed": [{ mode: "plain" }, (_w, config) => outcomeOf(startOne(config, requestOf(1), gated(config, "closed")))],
  "start-read-only": [{ mode: "plain" }, (_w, config) => outcomeOf(startOne(config, requestOf(1), gated(config, "read-only")))],
  "start-observe-only": [{ mode: "plain" }, (_w, config) => outcomeOf(startOne(config, requestOf(1), gated(config, "observe-only")))],
  "start-invalid": [{ mode: "plain" }, (_w, config) => outcomeOf(startOne(config, { ...requestOf(1), job: "not-a-ulid" }))],
  "start-unsupported": [{ mode: "plain" }, (_w, config) => outcomeOf(startOne(config, requestOf(1, { runtime: "not-configured" })))],
  // The source runtime is gone, and the job's frozen runtime cannot be read: the refusal stands, passing.
  "start-frozen-unreadable": [{ mode: "plain", ...faultsOn("get", "trainingruntimes", { type: "status", code: 503 }) }, (world, config) =>
    Effect.gen(function* () {
      world.sim.system.delete("clustertrainingruntimes", undefined, "torch-distributed", "Background")
      return yield* outcomeWithCause("Passing", startOne(config))
    })
  ],
  "start-runtime-unreachable": [{ mode: "plain", ...faultsOn("get", "clustertrainingruntimes", { type: "status", code: 503 }) }, (_w, config) => outcomeOf(startOne(config))],
  "start-copy-unreachable": [{ mode: "plain", ...faultsOn("create", "trainingruntimes", { type: "status", code: 503 }) }, (_w, config) => outcomeOf(startOne(config))],
  "start-forbidden": [{ mode: "plain", ...faultsOn("create", "trainjobs", { type: "status", code: 403 }) }, (_w, config) => outcomeOf(startOne(config))],
  "start-copy-conflict": [
    { mode: "plain", sim: { objects: [torchRuntime(trainJobName(jobId(1), 1), "TrainingRuntime", "someone/else:1")] } },
    (_w, config) => outcomeWith("differs from its source", startOne(config))
  ],
  "start-trainjob-unanswered": [{ mode: "plain", ...faultsOn("create", "trainjobs", { type: "drop" }) }, (_w, config) => outcomeOf(startOne(config))],
  "start-trainjob-unreadable": [{ mode: "plain" }, (world, config) =>
    Effect.gen(function* () {
      yield* startOne(config)
      yield* faultsNow(world, "get", "trainjobs", { type: "status", code: 503 })
      return yield* outcomeOf(startOne(config))
    })
  ],
  "start-trainjob-unreachable": [{ mode: "plain", ...faultsOn("create", "trainjobs", { type: "status", code: 503 }) }, (world, config) =>
    Effect.gen(function* () {
      const outcome = yield* outcomeOf(startOne(config))
      // The copy this call created was deleted.
      return world.sim.system.list("trainingruntimes", namespace).some((o) => o.metadata?.["name"] === name(1)) ? `${outcome} with the copy left` : outcome
    })
  ],
  "start-trainjob-unreachable-copy-kept": [
    { mode: "plain", ...faults(["create", "trainjobs", { type: "status", code: 503 }], ["delete", "trainingruntimes", { type: "status", code: 503 }]) },
    (_w, config) => outcomeWith("copy", startOne(config))
  ],
  "start-trainjob-refused": [{ mode: "plain", ...faultsOn("create", "trainjobs", { type: "status", code: 422 }) }, (_w, config) => outcomeOf(startOne(config))],
  "start-trainjob-differs": [{ mode: "plain" }, (_w, config) =>
    Effect.andThen(startOne(config), outcomeOf(startOne(config, { ...requestOf(1), attempt: 2 })))
  ],
  "start-owner-not-set": [{ mode: "plain", ...faultsOn("patch", "trainingruntimes", { type: "status", code: 422 }) }, (_w, config) => outcomeWithCause("Refused", startOne(config))],
  "start-owner-passing": [{ mode: "plain", ...faultsOn("patch", "trainingruntimes", { type: "status", code: 500 }) }, (_w, config) => outcomeWithCause("Passing", startOne(config))],
  "start-readback-differs": [{ mode: "plain", ...faultsOn("get", "trainjobs", { type: "status", code: 403 }) }, (_w, config) => outcomeWithCause("Refused", startOne(config))],
  "start-readback-passing": [{ mode: "plain", ...faultsOn("get", "trainjobs", { type: "drop" }) }, (_w, config) => outcomeWithCause("Passing", startOne(config))],
  // Kueue's queue lists its own admission check, not the one this config names: the Workload lacks it.
  "start-no-workload": [{ mode: "kueue" }, (_w, config) =>
    outcomeWith("no ready Workload", startOne({ ...config, kueue: { queue: config.kueue?.queue ?? "", admissionCheck: "another-check" } }))
  ],
  "start-copy-not-revoked": [
    { mode: "plain", ...faults(["patch", "trainingruntimes", { type: "status", code: 500 }], ["delete", "trainingruntimes", { type: "status", code: 503 }]) },
    (_w, config) => outcomeWith("the runtime copy could not be deleted first", startOne(config))
  ],
  // The creator's owner patch is answered late; meanwhile a second Start of the request adopts the
  // TrainJob and succeeds; then the creator's read-back fails.
  "start-adopted-concurrently": [
    {
      mode: "plain",
      sim: {
        faults: [
          { verb: "patch", resource: "trainingruntimes", nth: 1, action: { type: "delay", ms: 2_000 } as never },
          { verb: "get", resource: "trainjobs", nth: 3, times: RETRY_POLICY.tries, action: { type: "status", code: 500 } as never }
        ]
      }
    },
    (_w, config) =>
      Effect.map(
        Effect.all([outcomeWith("a concurrent Start of this request adopted the TrainJob", startOne(config)), outcomeOf(startOne(config))], { concurrency: "unbounded" }),
        ([creator]) => creator
      )
  ],
  // The creator's stop deleted the copy (held by a finalizer) but not the TrainJob; then a retry.
  "start-stop-unfinished": [
    { mode: "plain", ...faultsOn("create", "trainingruntimes", { type: "drop" }, 1) },
    (world, config) =>
      Effect.gen(function* () {
        // A copy left by an unanswered create, held by a finalizer as Trainer's would hold it.
        yield* Effect.ignore(startOne(config))
        const copy = world.sim.system.get("trainingruntimes", namespace, name(1))!
        world.sim.system.update("trainingruntimes", { ...copy, metadata: { ...copy.metadata, finalizers: ["example.com/keep"] } })
        world.sim.setFaults([
          { verb: "patch", resource: "trainingruntimes", action: { type: "status", code: 500 } },
          { verb: "delete", resource: "trainjobs", action: { type: "status", code: 503 } }
        ])
        yield* Effect.ignore(startOne(config))
        world.sim.setFaults([])
        return yield* outcomeWith("an earlier stop did not finish", startOne(config))
      })
  ],
  "start-adopted-kept": [{ mode: "kueue", kueue: false, ...faultsOn("create", "trainjobs", { type: "drop" }, 1) }, (_w, config) =>
    Effect.andThen(Effect.ignore(startOne(config)), outcomeWith("the TrainJob existed before this Start, so it was left as it is", startOne(config)))
  ],
  "start-stop-failed": [
    { mode: "plain", ...faults(["patch", "trainingruntimes", { type: "status", code: 500 }], ["delete", "trainjobs", { type: "status", code: 503 }]) },
    (_w, config) => outcomeOf(startOne(config))
  ],

  "factory-invalid-config": [{ mode: "plain" }, () => outcomeOf(factory({ namespace: "Not A Namespace", mode: "plain", runtimes: [] }))],
  "factory-closed-unreachable": [{ mode: "plain", down: true }, (_w, config) => gateOf(config)],
  "factory-closed-missing-runtime": [
    { mode: "plain" },
    (_w, config) => gateOf({ ...config, runtimes: [...config.runtimes, { kind: "ClusterTrainingRuntime", name: "absent-runtime" }] })
  ],
  "factory-closed-unanswered": [{ mode: "plain", ...faultsOn("create", "trainjobs", { type: "drop" }) }, (_w, config) => gateOf(config)],
  "factory-read-only-forbidden": [{ mode: "plain", ...faultsOn("create", "trainjobs", { type: "status", code: 403 }) }, (_w, config) => gateOf(config)],
  "factory-closed-write-transient": [{ mode: "plain", ...faultsOn("create", "trainjobs", { type: "status", code: 503 }) }, (_w, config) => gateOf(config)],
  "factory-closed-missing-namespace": [
    { mode: "plain" },
    (_w, config) => gateOf({ ...config, namespace: "nowhere", runtimes: config.runtimes.filter((r) => r.kind === "ClusterTrainingRuntime") })
  ],
  "factory-observe-only-write-refused": [{ mode: "plain", ...faultsOn("create", "trainjobs", { type: "status", code: 422 }) }, (_w, config) => gateOf(config)],
  "factory-observe-only-probe-refused": [
    { mode: "plain", sim: { objects: [broken] } },
    (_w, config) => {
      const probeRuntime = { kind: "ClusterTrainingRuntime" as const, name: "broken-torch" }
      return gateOf({ ...config, runtimes: [...config.runtimes, probeRuntime], probeRuntime })
    }
  ],
  "factory-read-only-leftover": [
    { mode: "plain", ...faultsOn("delete", "trainjobs", { type: "status", code: 503 }) },
    (_w, config) => Effect.andThen(gateOf(config), gateOf(config))
  ],
  "factory-read-only-cleanup": [{ mode: "plain", ...faultsOn("delete", "trainjobs", { type: "status", code: 503 }) }, (_w, config) => gateOf(config)],
  "factory-observe-only-readback": [{ mode: "plain", ...faultsOn("patch", "trainingruntimes", { type: "status", code: 500 }) }, (_w, config) => gateOf(config)],
  "factory-observe-only-kueue": [{ mode: "kueue", kueue: false }, (_w, config) => gateOf(config)],

  "capabilities-closed": [{ mode: "plain" }, (_w, config) => outcomeOf(capabilities(gated(config, "closed"), requestOf(1).spec))],
  "capabilities-invalid-spec": [{ mode: "plain" }, (_w, config) => outcomeOf(capabilities(openBackend(config), { command: "not a list" }))],
  "capabilities-unsupported": [{ mode: "plain" }, (_w, config) => outcomeOf(capabilities(openBackend(config), requestOf(1, { runtime: "not-configured" }).spec))],
  "capabilities-unreachable": [
    { mode: "plain", ...faultsOn("get", "clustertrainingruntimes", { type: "refuse" }) },
    (_w, config) => outcomeOf(capabilities(openBackend(config), requestOf(1).spec))
  ],

  "find-closed": [{ mode: "plain" }, (_w, config) => outcomeOf(find(gated(config, "closed"), keyOf(1)))],
  "find-invalid-key": [{ mode: "plain" }, (_w, config) => outcomeOf(findMany(openBackend(config), [keyOf(1), { job: "x", submission: 0 }]))],
  "find-unreachable": [{ mode: "plain", ...faultsOn("get", "trainjobs", { type: "refuse" }) }, (_w, config) => outcomeOf(find(openBackend(config), keyOf(1)))],
  "find-forbidden": [{ mode: "plain", ...faultsOn("get", "trainjobs", { type: "status", code: 403 }) }, (_w, config) => outcomeOf(find(openBackend(config), keyOf(1)))],

  "transition-closed": [{ mode: "plain" }, (_w, config) => outcomeOf(hold(gated(config, "closed"), keyOf(1)))],
  "transition-read-only": [{ mode: "plain" }, (_w, config) => outcomeOf(release(gated(config, "read-only"), keyOf(1)))],
  "open-observe-only": [{ mode: "plain" }, (_w, config) => outcomeOf(open(gated(config, "observe-only"), keyOf(1)))],
  "transition-invalid-key": [{ mode: "plain" }, (_w, config) => outcomeOf(open(openBackend(config), { job: jobId(1), submission: 1_000_000 }))],
  "transition-absent": [{ mode: "plain" }, (_w, config) => outcomeOf(open(openBackend(config), keyOf(1)))],
  "transition-not-dispatch": [{ mode: "plain" }, (world, config) =>
    Effect.gen(function* () {
      yield* started(config, 1)
      yield* unlabel(world, 1)
      return yield* outcomeOf(open(openBackend(config), keyOf(1)))
    })
  ],
  "transition-stopping": [{ mode: "kueue" }, (world, config) =>
    Effect.gen(function* () {
      yield* started(config, 1)
      yield* stopping(world, 1)
      return yield* outcomeOf(open(openBackend(config), keyOf(1)))
    })
  ],
  "transition-finished": [{ mode: "plain" }, (_w, config) =>
    Effect.gen(function* () {
      const backend = openBackend(config)
      yield* started(config, 1)
      yield* open(backend, keyOf(1))
      yield* awaitState(backend, keyOf(1), "Succeeded", 60_000)
      return yield* outcomeOf(hold(backend, keyOf(1)))
    })
  ],
  "transition-forbidden": [{ mode: "kueue", ...faultsOn("patch", "workloads", { type: "status", code: 403 }) }, (_w, config) =>
    Effect.andThen(started(config, 1), outcomeOf(open(openBackend(config), keyOf(1))))
  ],
  "transition-unreachable": [{ mode: "plain", ...faultsOn("patch", "trainjobs", { type: "status", code: 503 }) }, (_w, config) =>
    Effect.andThen(started(config, 1), outcomeOf(open(openBackend(config), keyOf(1))))
  ],
  "transition-invalid": [{ mode: "plain", ...faultsOn("patch", "trainjobs", { type: "status", code: 422 }) }, (_w, config) =>
    Effect.andThen(started(config, 1), outcomeOf(open(openBackend(config), keyOf(1))))
  ],
  "transition-did-not-hold": [{ mode: "plain", ...faultsOn("patch", "trainjobs", { type: "status", code: 409 }, MAX_WRITES) }, (_w, config) =>
    Effect.andThen(started(config, 1), outcomeOf(open(openBackend(config), keyOf(1))))
  ],
  "transition-unanswered": [{ mode: "kueue", ...faultsOn("patch", "workloads", { type: "status", code: 504 }, MAX_WRITES) }, (_w, config) =>
    Effect.andThen(started(config, 1), outcomeOf(hold(openBackend(config), keyOf(1))))
  ],
  "kueue-no-workload": [{ mode: "kueue", kueue: false }, (_w, config) =>
    // A TrainJob Kueue never sees: started in plain mode, then opened as the Kueue backend.
    Effect.andThen(started({ ...config, mode: "plain" }, 1), outcomeOf(open(openBackend(config), keyOf(1))))
  ],

  "stop-closed": [{ mode: "plain" }, (_w, config) => outcomeOf(stop(gated(config, "closed"), keyOf(1)))],
  "stop-read-only": [{ mode: "plain" }, (_w, config) => outcomeOf(stop(gated(config, "read-only"), keyOf(1)))],
  "stop-invalid-key": [{ mode: "plain" }, (_w, config) => outcomeOf(stop(openBackend(config), { job: jobId(1).toLowerCase(), submission: 1 }))],
  "stop-in-flight": [{ mode: "plain", ...faultsOn("create", "trainjobs", { type: "status", code: 504 }) }, (_w, config) =>
    Effect.andThen(started(config, 1).pipe(Effect.ignore), outcomeOf(stop(openBackend(config), keyOf(1))))
  ],
  "stop-not-dispatch": [{ mode: "plain" }, (world, config) =>
    Effect.gen(function* () {
      yield* started(config, 1)
      yield* unlabel(world, 1)
      return yield* outcomeOf(stop(openBackend(config), keyOf(1)))
    })
  ],
  "stop-forbidden": [{ mode: "plain", ...faultsOn("delete", "trainjobs", { type: "status", code: 403 }) }, (_w, config) =>
    Effect.andThen(started(config, 1), outcomeOf(stop(openBackend(config), keyOf(1))))
  ],
  "stop-unreachable": [{ mode: "plain", ...faultsOn("get", "trainjobs", { type: "refuse" }) }, (_w, config) => outcomeOf(stop(openBackend(config), keyOf(1)))],
  "stop-unanswered": [{ mode: "kueue", ...faultsOn("delete", "trainjobs", { type: "status", code: 504 }, MAX_WRITES) }, (_w, config) =>
    Effect.andThen(started(config, 1), outcomeOf(stop(openBackend(config), keyOf(1))))
  ]
}

describe("docs/errors.md, every case row", () => {
  it("has a row for every case provoked here, and a case here for every row", () => {
    expect(rows.length).toBeGreaterThan(30)
    expect(rows.map((r) => r.name).sort()).toEqual(Object.keys(cases).sort())
  })

  for (const row of rows) {
    it(`${row.name}: ends as ${row.result}`, async () => {
      const entry = cases[row.name]
      if (entry === undefined) throw new Error(`no case provokes the row ${row.name}`)
      const [options, provoke] = entry
      expect(await inProcess.run(options, provoke)).toBe(row.result)
    })
  }
})

/** The rows of the Cluster layer's table: reason, From, Write happened?, In a read, In a create. */
const clusterRows = (page.split("## The Cluster layer's reasons")[1] ?? "")
  .split("\n## ")[0]!
  .split("\n")
  .filter((line) => line.startsWith("| ") && !line.startsWith("| ClusterError") && !line.startsWith("|---"))
  .map((line) => line.split("|").map((c) => c.trim()).slice(1, 7))

const errorTag = /^Err[A-Za-z]+$/

describe("docs/errors.md, the Cluster layer's table", () => {
  it("lists every ClusterError reason once", () => {
    expect(clusterRows.map((r) => r[0]).sort()).toEqual([...ClusterErrorReason.literals].sort())
  })

  for (const [reason, , , inRead, inCreate] of clusterRows) {
    it(`${reason}: a failed read and a failed create map as the table says`, () => {
      const error = new ClusterError({ reason: reason as ClusterErrorReason, call: "get trainjobs default/x" })
      if (inRead !== undefined && errorTag.test(inRead)) expect(readFailure(error)._tag).toBe(inRead)
      // A copy's create is a definite write failure; the TrainJob's Unanswered is Start's step 6 (the
      // `start-trainjob-unanswered` case above).
      const createCell = (inCreate ?? "").replace(/^copy: /, "").split(";")[0]!.trim()
      if (errorTag.test(createCell)) expect(definiteWriteFailure(error)._tag).toBe(createCell)
      // A 404 on a read is the runtime missing, not an error; AlreadyExists on a create is compared.
      if (reason === "NotFound") expect(inRead).toContain("missing")
      if (reason === "AlreadyExists") expect(inCreate).toContain("compare")
    })

    it(`${reason}: its Cause kind column is what the cause says`, () => {
      const cell = clusterRows.find((r) => r[0] === reason)?.[5] ?? ""
      const of = (code: number | undefined) =>
        kindOfClusterError(new ClusterError({ reason: reason as ClusterErrorReason, call: "x", ...(code === undefined ? {} : { status: { code, reason: "", message: "", causes: [] } }) }))
      if (cell === "Passing" || cell === "Refused") {
        expect(of(undefined)).toBe(cell)
        return
      }
      // "Passing for 429, ...; Refused for any other code".
      const passing = (/^Passing for ([\d, ]+);/.exec(cell)?.[1] ?? "").split(",").map((c) => Number(c.trim()))
      expect(passing.length).toBeGreaterThan(0)
      for (const code of passing) expect(of(code)).toBe("Passing")
      expect(cell).toContain("Refused for any other code")
      for (const code of [400, 405, 410, 501, 505]) expect(of(code)).toBe("Refused")
    })

    it(`${reason}: every HTTP code of its From column maps to it`, () => {
      const from = clusterRows.find((r) => r[0] === reason)?.[1] ?? ""
      // "5xx other than 504" names 504 as an exception, not a member.
      for (const code of (from.match(/(?<!other than )\b\d{3}\b/g) ?? []).map(Number)) {
        const message = reason === "Invalid" && code === 403 ? 'admission webhook "check.example" denied the request: no' : "refused"
        expect(reasonOfStatus({ code, reason: reason === "AlreadyExists" ? "AlreadyExists" : "", message, causes: [] })).toBe(reason)
      }
    })
  }
})
