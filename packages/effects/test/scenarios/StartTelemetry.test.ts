// Start's spans and log lines, through KubeCluster and the HTTP simulator with a kubeconfig token: every
// step has its span with the job's attributes, log lines carry the job id, and the token appears in no
// span, log line or error.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit, Layer, Logger, References, Tracer } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { type FaultRule, Simulator, kubeconfigFor, startSimServer } from "@dispatch/sim"
import { InFlightMemory } from "../../src/InFlight.ts"
import { KubeCluster } from "../../src/KubeCluster.ts"
import { start } from "../../src/Start.ts"
import { backendOf, configOf, jobId, requestOf, runtimes, trainJobNameOf } from "../StartFixture.ts"

const token = "tok-3f9a-must-never-be-logged"
const dir = mkdtempSync(join(tmpdir(), "dispatch-telemetry-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

interface Recorded {
  readonly spans: Array<Tracer.NativeSpan>
  readonly logs: Array<{ readonly message: unknown; readonly annotations: Readonly<Record<string, unknown>> }>
  readonly exit: Exit.Exit<unknown, unknown>
}

const startOverHttp = async (faults: ReadonlyArray<FaultRule>): Promise<Recorded> => {
  const simulator = new Simulator({ objects: runtimes(), auth: { tokens: { [token]: "*" } }, faults })
  const server = await startSimServer({ simulator })
  const path = join(dir, `kubeconfig-${Math.floor(performance.now())}`)
  writeFileSync(path, kubeconfigFor(server, { token }))
  const spans: Array<Tracer.NativeSpan> = []
  const logs: Array<{ message: unknown; annotations: Readonly<Record<string, unknown>> }> = []
  const tracer = Tracer.make({
    span: (options) => {
      const span = new Tracer.NativeSpan(options)
      spans.push(span)
      return span
    }
  })
  const logger = Logger.make((options) => void logs.push({ message: options.message, annotations: options.fiber.getRef(References.CurrentLogAnnotations) }))
  const config = configOf("plain")
  try {
    const exit = await Effect.runPromiseExit(
      start(backendOf(config), requestOf(1)).pipe(
        Effect.withTracer(tracer),
        Effect.provideService(References.MinimumLogLevel, "All"),
        Effect.provide(Layer.mergeAll(Layer.orDie(KubeCluster({ kubeconfigPath: path, callMs: 2000 })), InFlightMemory, Logger.layer([logger])))
      )
    )
    return { spans, logs, exit }
  } finally {
    await server.close()
  }
}

describe("Start's telemetry", () => {
  it("opens one span per step, in the seed's order, with the job id and name", async () => {
    const { spans, exit } = await startOverHttp([])
    expect(Exit.isSuccess(exit)).toBe(true)
    const steps = spans.map((s) => s.name).filter((n) => n.startsWith("dispatch.start."))
    expect(steps).toEqual([
      "dispatch.start.checkGates",
      "dispatch.start.decodeRequest",
      "dispatch.start.readRuntime",
      "dispatch.start.checkRuntimeRules",
      "dispatch.start.render",
      "dispatch.start.createCopy",
      "dispatch.start.createTrainJob",
      "dispatch.start.setCopyOwner",
      "dispatch.start.readBack",
      "dispatch.start.awaitWorkload"
    ])
    // Every step carries the job id; from step 2 on (the request decoded) the TrainJob's name too.
    for (const span of spans.filter((s) => s.name.startsWith("dispatch.start."))) {
      expect(span.attributes.get("dispatch.job"), span.name).toBe(jobId(1))
      if (!["dispatch.start.checkGates", "dispatch.start.decodeRequest"].includes(span.name)) {
        expect(span.attributes.get("dispatch.name"), span.name).toBe(trainJobNameOf(1))
      }
    }
  })

  it("logs with the job id, and never the kubeconfig's token, on success or failure", async () => {
    const ok = await startOverHttp([])
    const failed = await startOverHttp([{ verb: "patch", resource: "trainingruntimes", action: { type: "status", code: 500 } }])
    expect(Exit.isFailure(failed.exit)).toBe(true)
    for (const run of [ok, failed]) {
      expect(run.logs.length).toBeGreaterThan(0)
      expect(run.logs.every((l) => l.annotations["job"] === jobId(1))).toBe(true)
      const everything = JSON.stringify({ logs: run.logs, spans: run.spans.map((s) => [s.name, [...s.attributes]]), exit: run.exit })
      expect(everything).not.toContain(token)
    }
    expect(failed.logs.some((l) => String(l.message).includes("setCopyOwner failed"))).toBe(true)
  })
})
