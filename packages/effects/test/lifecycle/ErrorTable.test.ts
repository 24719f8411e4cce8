// docs/errors.md and the code agree: every case row of the lifecycle tables is provoked here on the
// in-process simulator and must end as its Result column says, and every case here has a row.
import { readFileSync } from "node:fs"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { type BackendConfig, trainJobName } from "@dispatch/render"
import { type Backend, type Gate, openBackend } from "../../src/Backend.ts"
import { Cluster } from "../../src/Cluster.ts"
import type { InFlight } from "../../src/InFlight.ts"
import { TrainJobs } from "../../src/ResourceKind.ts"
import { capabilities } from "../../src/lifecycle/Capabilities.ts"
import { MAX_WRITES } from "../../src/lifecycle/Converge.ts"
import { factory, factoryOf } from "../../src/lifecycle/Factory.ts"
import { find, findMany } from "../../src/lifecycle/Find.ts"
import { stop } from "../../src/lifecycle/Stop.ts"
import { hold, open, release } from "../../src/lifecycle/Transitions.ts"
import { jobId, namespace, requestOf, torchRuntime } from "../StartFixture.ts"
import { awaitState, inProcess, keyOf, lifecycleConfig, started, type World, type WorldOptions } from "./LifecycleFixture.ts"

/** One row of the page: its case name and the Result column. */
interface Row {
  readonly name: string
  readonly result: string
}

const page = readFileSync(new URL("../../../../docs/errors.md", import.meta.url), "utf8")

/** The case rows of the lifecycle section: `| \`case\` | Result | ...`. */
const rows: ReadonlyArray<Row> = (page.split("## Lifecycle operations")[1] ?? "")
  .split("\n")
  .filter((line) => line.startsWith("| `"))
  .map((line) => {
    const cells = line.split("|").map((c) => c.trim())
    return { name: (cells[1] ?? "").replaceAll("`", ""), result: cells[2] ?? "" }
  })

type Outcome = string
type Provoke = (world: World, config: BackendConfig) => Effect.Effect<Outcome, unknown, Cluster | InFlight>

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

/** Every case, with the world it needs and how to provoke it. */
const cases: Readonly<Record<string, readonly [WorldOptions, Provoke]>> = {
  "factory-invalid-config": [{ mode: "plain" }, () => outcomeOf(factory({ namespace: "Not A Namespace", mode: "plain", runtimes: [] }))],
  "factory-closed-unreachable": [{ mode: "plain", down: true }, (_w, config) => gateOf(config)],
  "factory-closed-missing-runtime": [
    { mode: "plain" },
    (_w, config) => gateOf({ ...config, runtimes: [...config.runtimes, { kind: "ClusterTrainingRuntime", name: "absent-runtime" }] })
  ],
  "factory-read-only-forbidden": [{ mode: "plain", ...faultsOn("create", "trainjobs", { type: "status", code: 403 }) }, (_w, config) => gateOf(config)],
  "factory-read-only-probe-refused": [
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

describe("docs/errors.md, lifecycle section", () => {
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
