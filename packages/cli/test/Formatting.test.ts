import { fc, test } from "@fast-check/vitest"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { parse, parseAllDocuments } from "yaml"
import { readFileSync } from "node:fs"
import { decodeConfig, decodeStartRequest, renderStart } from "@dispatch/render"
import type { FoundJob, ProbeReport } from "@dispatch/effects"
import { parseClusterCommand, jobOptions } from "../src/ClusterArgs.ts"
import { Commands } from "../src/Commands.ts"
import { describeObjects } from "../src/CreatedObjects.ts"
import { ExitCode } from "../src/ExitCode.ts"
import { exitCodeOfFailure } from "../src/Failure.ts"
import { statusLine } from "../src/commands/Find.ts"
import { probeFailure, probeLines } from "../src/commands/Probe.ts"
import { formatManifests } from "../src/commands/Render.ts"
import { example } from "./DispatchBinary.ts"
import { lineOf } from "./CommandLine.ts"

const config = Result.getOrThrow(decodeConfig(JSON.parse(readFileSync(example("config.json"), "utf8"))))
const manifests = Result.getOrThrow(
  renderStart(Result.getOrThrow(decodeStartRequest(JSON.parse(readFileSync(example("request.json"), "utf8")))), config, parse(readFileSync(example("runtime.yaml"), "utf8")))
)

const proof = fc.record({ proven: fc.boolean(), reasons: fc.array(fc.string({ maxLength: 20 }), { maxLength: 3 }) })
const gate = fc.oneof(
  fc.constant({ state: "open" as const }),
  fc.record({ state: fc.constantFrom("closed" as const, "read-only" as const, "observe-only" as const), reason: fc.string({ maxLength: 20 }) })
)
const report: fc.Arbitrary<ProbeReport> = fc.record({ gate, reach: proof, write: proof, launch: proof, leftovers: fc.array(fc.string({ maxLength: 20 }), { maxLength: 2 }) })

describe("probe results", () => {
  test.prop([report])("exit by the first gate not proven, as Start's step 1 refuses; leftovers alone are a failure", (r) => {
    const failure = probeFailure(r)
    const expected = { open: r.leftovers.length === 0 ? ExitCode.ok : ExitCode.failure, closed: ExitCode.ErrUnreachable, "read-only": ExitCode.ErrReadOnly, "observe-only": ExitCode.ErrUnsupported }[r.gate.state]
    expect(failure === undefined ? ExitCode.ok : exitCodeOfFailure(failure)).toBe(expected)
    const lines = probeLines(r)
    expect(lines[0]).toMatch(new RegExp(`^backend ${r.gate.state}`))
    // Every reason of every gate not proven is shown.
    for (const proof of [r.reach, r.write, r.launch]) {
      for (const reason of proof.proven ? [] : proof.reasons) expect(lines).toContain(`           - ${reason}`)
    }
  })
})

describe("render output", () => {
  it("YAML is the two objects as two documents, JSON the object {runtimeCopy, trainJob}", () => {
    expect(parseAllDocuments(formatManifests(manifests, "yaml")).map((d) => d.toJS() as unknown)).toEqual([manifests.runtimeCopy, manifests.trainJob])
    expect(JSON.parse(formatManifests(manifests, "json"))).toEqual({ runtimeCopy: manifests.runtimeCopy, trainJob: manifests.trainJob })
  })
})

describe("find output", () => {
  const ref = { namespace: "ns", name: "dj-x-s1" }
  const status: fc.Arbitrary<FoundJob> = fc.oneof(
    fc.constantFrom("Absent" as const, "Running" as const, "Stopping" as const).map((state) => ({ state, ref })),
    fc.record({ state: fc.constantFrom("Held" as const, "Queued" as const, "Succeeded" as const), reason: fc.string({ minLength: 1, maxLength: 20 }) }).map((s) => ({ ...s, ref })),
    fc.record({ state: fc.constant("Failed" as const), reason: fc.string({ minLength: 1, maxLength: 20 }), message: fc.string({ maxLength: 20 }) }).map((s) => ({ ...s, ref })),
    fc.record({ state: fc.constant("InFlight" as const), sinceMs: fc.integer({ min: 0, max: 2e12 }), untilMs: fc.integer({ min: 0, max: 2e12 }) }).map((s) => ({ ...s, ref }))
  )
  test.prop([status])("names the job and its state, and any reason the state carries", (s) => {
    const line = statusLine(s)
    expect(line.startsWith(`ns/dj-x-s1: ${s.state}`)).toBe(true)
    if ("reason" in s) expect(line).toContain(s.reason)
  })
})

describe("the objects the demo shows", () => {
  it("one line each, saying what the object is to dispatch", () => {
    const owned = { ...manifests.runtimeCopy, metadata: { ...(manifests.runtimeCopy.metadata as object), ownerReferences: [{ kind: "TrainJob", name: manifests.name }] } }
    const lines = describeObjects([parse(readFileSync(example("runtime.yaml"), "utf8")), owned, manifests.trainJob], config)
    expect(lines).toHaveLength(3)
    expect(lines[0]).toMatch(/^TrainingRuntime ml-team\/dispatch-torch +the runtime the cluster offers/)
    expect(lines[1]).toContain(`dispatch's private copy of TrainingRuntime/dispatch-torch, owned by TrainJob ${manifests.name}`)
    expect(lines[2]).toMatch(/^TrainJob ml-team\/dj-.* +job 01JD8X2Q4M7N9P3R5S6T8V0W1Y submission 17, image registry\.example\.com\/ml\/resnet:1\.4\.2, 2 node\(s\) x 4 nvidia\.com\/gpu/)
    // Created suspended, the TrainJob is held until dispatch releases it.
    expect(lines[2]).toMatch(/, state Suspended$/)
  })
})

describe("job options", () => {
  test.prop([fc.stringMatching(/^[0-9A-Z]{1,26}$/), fc.integer({ min: 0, max: 999_999_999 })])("read back --job and --submission", async (job, submission) => {
    expect(parseClusterCommand(Commands.find, (await lineOf(["find", "--job", job, "--submission", String(submission)])).list, jobOptions)).toEqual({
      args: { target: { _tag: "Kube" }, output: "text", job, submission }
    })
  })

  it("refuses a submission that is not a whole number", async () => {
    expect(parseClusterCommand(Commands.find, (await lineOf(["find", "--job", "J", "--submission", "1.5"])).list, jobOptions)).toEqual({ _tag: "UsageError", problems: ['--submission "1.5" is not a whole number'] })
  })
})
