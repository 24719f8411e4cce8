// Why the probe's write failed decides the Backend's gate, as Start would classify the cause: transient
// -> closed, RBAC's 403 -> read-only, the cluster or the runtime rules refusing the probe -> observe-only
// (Start's ErrUnsupported, naming the rule), a missing namespace -> closed, naming it. Each row through
// the simulator's fault plan, in-process and (the cheap ones) over HTTP, reading what was left in the store.
import { fc, test } from "@fast-check/vitest"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { PROBE_JOB_ID, trainJobName } from "@dispatch/render"
import type { FaultRule } from "@dispatch/sim"
import { gateRefusal } from "../../src/Backend.ts"
import { ClusterError, ClusterErrorReason } from "../../src/ClusterError.ts"
import { probe } from "../../src/lifecycle/Probe.ts"
import { probeCause } from "../../src/lifecycle/ProbeCause.ts"
import { ErrInvalid, ErrOutcomeUnknown, ErrReadOnly, ErrRejected, ErrUnreachable, ErrUnsupported } from "../../src/StartErrors.ts"
import { definiteWriteFailure } from "../../src/StartFailure.ts"
import { classifyWriteFailure } from "../../src/WriteFailure.ts"
import { torchRuntime } from "../StartFixture.ts"
import { type Face, inProcess, lifecycleConfig, overHttp, storedNamed, type World } from "./LifecycleFixture.ts"

const probeName = trainJobName(PROBE_JOB_ID, 1)

const leftIn = (world: World, namespace: string) => [...storedNamed(world, "trainjobs", probeName), ...storedNamed(world, "trainingruntimes", probeName), ...world.sim.system.list("workloads", namespace)]

const webhookMessage = 'admission webhook "validate.trainjob.trainer.kubeflow.org" denied the request: spec.runtimeRef: the runtime is not allowed here'
const rbacMessage = 'trainjobs.trainer.kubeflow.org is forbidden: User "dispatch" cannot create resource "trainjobs" in API group "trainer.kubeflow.org" in the namespace "default"'

// A runtime whose trainer container sets a variable of dispatch's own: the runtime rules refuse it.
const brokenRuntime = (() => {
  const runtime = torchRuntime("broken-torch") as { spec: { template: { spec: { replicatedJobs: Array<{ template: { spec: { template: { spec: { containers: Array<Record<string, unknown>> } } } } }> } } } }
  const container = runtime.spec.template.spec.replicatedJobs[0]!.template.spec.template.spec.containers[0]!
  container["env"] = [{ name: "DISPATCH_WORKDIR", value: "/tmp" }]
  return runtime
})()

interface Row {
  readonly cause: string
  readonly faults?: ReadonlyArray<FaultRule>
  readonly overrides?: Record<string, unknown>
  readonly state: "closed" | "read-only" | "observe-only"
  /** The refusal Start's step 1 then gives. */
  readonly error: "ErrUnreachable" | "ErrReadOnly" | "ErrUnsupported"
  /** The first reason of the gate. */
  readonly first: string
  /** Another text the gate's reason must contain. */
  readonly names?: string
  readonly http: boolean
}

const onCreate = (resource: string, code: number, message?: string): ReadonlyArray<FaultRule> => [
  { verb: "create", resource, action: { type: "status", code, ...(message === undefined ? {} : { message }) } }
]

const rows: ReadonlyArray<Row> = [
  { cause: "503 on the TrainJob create", faults: onCreate("trainjobs", 503), state: "closed", error: "ErrUnreachable", first: "the probe's write failed transiently (retry later)", http: true },
  { cause: "500 on the copy's create", faults: onCreate("trainingruntimes", 500), state: "closed", error: "ErrUnreachable", first: "the probe's write failed transiently (retry later)", http: false },
  { cause: "429 on the TrainJob create", faults: onCreate("trainjobs", 429), state: "closed", error: "ErrUnreachable", first: "the probe's write failed transiently (retry later)", http: false },
  { cause: "a refused TrainJob create", faults: [{ verb: "create", resource: "trainjobs", action: { type: "refuse" } }], state: "closed", error: "ErrUnreachable", first: "the probe's write failed transiently (retry later)", http: true },
  { cause: "RBAC's 403 on the TrainJob create", faults: onCreate("trainjobs", 403, rbacMessage), state: "read-only", error: "ErrReadOnly", first: "the probe may not write", names: "cannot create", http: true },
  { cause: "RBAC's 403 on the copy's create", faults: onCreate("trainingruntimes", 403, rbacMessage), state: "read-only", error: "ErrReadOnly", first: "the probe may not write", http: false },
  {
    cause: "a webhook's denial (403) of the TrainJob",
    faults: onCreate("trainjobs", 403, webhookMessage),
    state: "observe-only",
    error: "ErrUnsupported",
    first: "the cluster refuses the probe on probeRuntime ClusterTrainingRuntime/torch-distributed",
    names: "validate.trainjob.trainer.kubeflow.org",
    http: false
  },
  {
    cause: "422 on the TrainJob create",
    faults: onCreate("trainjobs", 422, "TrainJob.trainer.kubeflow.org \"x\" is invalid: spec.trainer.numNodes: Invalid value"),
    state: "observe-only",
    error: "ErrUnsupported",
    first: "the cluster refuses the probe on probeRuntime ClusterTrainingRuntime/torch-distributed",
    names: "numNodes",
    http: true
  },
  { cause: "a missing namespace (404)", overrides: { namespace: "nowhere", runtimes: [{ kind: "ClusterTrainingRuntime", name: "torch-distributed" }] }, state: "closed", error: "ErrUnreachable", first: 'namespace "nowhere" does not exist', http: true },
  {
    cause: "a probeRuntime that breaks the runtime rules",
    overrides: {
      runtimes: [{ kind: "ClusterTrainingRuntime", name: "torch-distributed" }, { kind: "ClusterTrainingRuntime", name: "broken-torch" }],
      probeRuntime: { kind: "ClusterTrainingRuntime", name: "broken-torch" }
    },
    state: "observe-only",
    error: "ErrUnsupported",
    first: "the probeRuntime ClusterTrainingRuntime/broken-torch cannot be used",
    names: "DISPATCH_WORKDIR",
    http: true
  }
]

const probeRow = (face: Face, row: Row) =>
  face.run({ mode: "plain", sim: { objects: [brokenRuntime], ...(row.faults === undefined ? {} : { faults: row.faults }) } }, (world) =>
    Effect.gen(function* () {
      const config = lifecycleConfig("plain", face.timing, row.overrides ?? {})
      const report = yield* probe(config)
      return { report, left: leftIn(world, config.namespace) }
    })
  )

const expectRow = (row: Row, result: Awaited<ReturnType<typeof probeRow>>) => {
  const gate = result.report.gate
  expect(gate.state).toBe(row.state)
  if (gate.state === "open") return
  expect(gate.reason.slice(0, row.first.length)).toBe(row.first)
  if (row.names !== undefined) expect(gate.reason).toContain(row.names)
  expect(gateRefusal(gate)?.error).toBe(row.error)
  expect(result.report.write.proven).toBe(false)
  // Whatever the cause, nothing of the probe stays.
  expect(result.report.leftovers).toEqual([])
  expect(result.left).toEqual([])
}

describe("the probe classifies a failed write as Start would", () => {
  for (const row of rows) {
    it(`${row.cause}: ${row.state} (${row.error})`, async () => {
      expectRow(row, await probeRow(inProcess, row))
    })
  }
})

describe("the probe classifies a failed write as Start would, over HTTP", () => {
  for (const row of rows.filter((r) => r.http)) {
    it(`${row.cause}: ${row.state} (${row.error})`, async () => {
      expectRow(row, await probeRow(overHttp, row))
    }, 60_000)
  }
})

const status = fc.record({
  code: fc.constantFrom(400, 401, 403, 404, 409, 422, 429, 500, 502, 503, 504),
  reason: fc.constantFrom("", "AlreadyExists", "Conflict", "NotFound", "Forbidden"),
  message: fc.oneof(fc.string(), fc.constant(webhookMessage), fc.constant('namespaces "team-a" not found'), fc.constant(rbacMessage)),
  causes: fc.constant([])
})
const clusterError = fc.oneof(
  fc.record({ reason: fc.constantFrom(...ClusterErrorReason.literals), status }).map(({ reason, status }) => new ClusterError({ reason, call: "create trainjobs default/x", status })),
  fc.constantFrom("Unreachable", "Unanswered").map((reason) => new ClusterError({ reason: reason as "Unreachable", call: "create trainjobs default/x", detail: "ECONNRESET" }))
)

describe("classifyWriteFailure and probeCause", () => {
  test.prop([clusterError])("agrees with Start's mapping: forbidden is ErrReadOnly, ErrUnreachable is transient, a refusal is ErrRejected", (error) => {
    const start = definiteWriteFailure(error)._tag
    const why = classifyWriteFailure(error).class
    expect(why === "forbidden").toBe(start === "ErrReadOnly")
    if (start === "ErrUnreachable") expect(why).toBe("transient")
    if (why === "refused" || why === "missingNamespace") expect(start).toBe("ErrRejected")
  })

  test.prop([clusterError])("the probe's gate follows the class, and its first reason names the cause", (error) => {
    const config = lifecycleConfig("plain", inProcess.timing)
    const cause = probeCause(config, error, undefined)
    const expected = { transient: "closed", forbidden: "read-only", refused: "observe-only", missingNamespace: "closed" } as const
    expect(cause.state).toBe(expected[classifyWriteFailure(error).class])
    expect(cause.reasons.slice(1)).toEqual(error.reasons)
  })

  it("a Start refused read-only says the probe may not write, then Start's reasons", () => {
    const config = lifecycleConfig("plain", inProcess.timing)
    expect(probeCause(config, undefined, new ErrReadOnly({ reasons: ["403 from the API server"] }))).toEqual({ state: "read-only", reasons: ["the probe may not write", "403 from the API server"] })
  })

  it("without a refused create, Start's own failure decides: the runtime rules observe-only, a 403 read-only, the rest closed", () => {
    const config = lifecycleConfig("plain", inProcess.timing)
    const reasons = ["why"]
    const states = [
      new ErrUnsupported({ reasons }),
      new ErrInvalid({ reasons }),
      new ErrReadOnly({ reasons }),
      new ErrUnreachable({ reasons }),
      new ErrOutcomeUnknown({ reasons }),
      new ErrRejected({ reasons })
    ].map((failure) => [failure._tag, probeCause(config, undefined, failure).state])
    expect(Object.fromEntries(states)).toEqual({
      ErrUnsupported: "observe-only",
      ErrInvalid: "observe-only",
      ErrReadOnly: "read-only",
      ErrUnreachable: "closed",
      ErrOutcomeUnknown: "closed",
      ErrRejected: "closed"
    })
    expect(probeCause(config, undefined, new ErrUnsupported({ reasons })).reasons).toEqual(["the probeRuntime ClusterTrainingRuntime/torch-distributed cannot be used", "why"])
    // With no failure to name, the gate gives its one sentence and invents no cause.
    expect(probeCause(config, undefined, undefined)).toEqual({ state: "closed", reasons: ["the probe's Start failed before its TrainJob was created (retry later)"] })
  })

  it("reads the missing namespace out of the API server's 404", () => {
    const error = new ClusterError({ reason: "NotFound", call: "create trainingruntimes team-a/x", status: { code: 404, reason: "NotFound", message: 'namespaces "team-a" not found', causes: [] } })
    expect(classifyWriteFailure(error)).toEqual({ class: "missingNamespace", namespace: "team-a" })
    const other = new ClusterError({ reason: "NotFound", call: "create trainjobs default/x", status: { code: 404, reason: "NotFound", message: "the server could not find the requested resource", causes: [] } })
    expect(classifyWriteFailure(other)).toEqual({ class: "refused" })
  })
})
