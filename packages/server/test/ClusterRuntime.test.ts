// The cluster runtime the dispatcher runs Start, Find and Stop through: each operation ends as its value, its typed
// error, or abandoned, never as a failure; a cluster client that cannot be made is an unreachable cluster; closing it
// ends the operations under way and refuses new ones.
import { Cluster, ErrRejected, KubeCluster, type ClusterError } from "@dispatch/effects"
import { Deferred, Effect, Fiber, Layer, References } from "effect"
import { describe, expect, test } from "vitest"
import { makeClusterRuntime } from "../src/dispatch/ClusterRuntime.ts"

// No operation here calls the cluster: a client that answers nothing is enough.
const noCluster = Layer.succeed(Cluster, {} as never) as Layer.Layer<Cluster, ClusterError>

describe("the cluster runtime", () => {
  test("an operation ends as its value, or as its typed error", async () => {
    const runtime = makeClusterRuntime(noCluster)
    try {
      expect(await Effect.runPromise(runtime.run(Effect.succeed(7)))).toEqual({ kind: "ok", value: 7 })
      const refused = new ErrRejected({ reasons: ["admission webhook denied it"] })
      expect(await Effect.runPromise(runtime.run(Effect.fail(refused)))).toEqual({ kind: "error", error: refused })
    } finally {
      await Effect.runPromise(runtime.close)
    }
  })

  test("a defect is an abandoned operation saying what happened", async () => {
    const runtime = makeClusterRuntime(noCluster)
    try {
      expect(await Effect.runPromise(runtime.run(Effect.die(new Error("boom"))))).toEqual({ kind: "abandoned", reason: "Error: boom" })
    } finally {
      await Effect.runPromise(runtime.close)
    }
  })

  test("a cluster client that cannot be made (an unreadable kubeconfig) is an unreachable cluster, naming why", async () => {
    const runtime = makeClusterRuntime(KubeCluster({ kubeconfigPath: "/nonexistent/kubeconfig", callMs: 1000 }))
    try {
      const run = await Effect.runPromise(runtime.run(Effect.succeed(1)))
      expect(run).toMatchObject({ kind: "error", error: { _tag: "ErrUnreachable" } })
      const reasons = run.kind === "error" ? run.error.reasons : []
      expect(reasons).toHaveLength(1)
      expect(reasons[0]).toMatch(/^the cluster client could not be made: load kubeconfig \/nonexistent\/kubeconfig: Unreachable \(.+\)$/)
    } finally {
      await Effect.runPromise(runtime.close)
    }
  })

  test("operations log at Warn unless the runtime is given another level", async () => {
    const level = Effect.service(References.MinimumLogLevel)
    const quiet = makeClusterRuntime(noCluster)
    const chatty = makeClusterRuntime(noCluster, "Debug")
    try {
      expect(await Effect.runPromise(quiet.run(level))).toEqual({ kind: "ok", value: "Warn" })
      expect(await Effect.runPromise(chatty.run(level))).toEqual({ kind: "ok", value: "Debug" })
    } finally {
      await Effect.runPromise(Effect.andThen(quiet.close, chatty.close))
    }
  })

  test("closing ends the operation under way as abandoned, and every later one is abandoned without running", async () => {
    const runtime = makeClusterRuntime(noCluster)
    const started = Deferred.makeUnsafe<void>()
    let ran = 0
    const waiting = Effect.runFork(runtime.run(Effect.andThen(Deferred.succeed(started, undefined), Effect.never)))
    await Effect.runPromise(Deferred.await(started))
    await Effect.runPromise(runtime.close)
    expect(await Effect.runPromise(Fiber.join(waiting))).toEqual({ kind: "abandoned", reason: "interrupted" })
    const later = await Effect.runPromise(runtime.run(Effect.sync(() => ++ran)))
    expect(later).toEqual({ kind: "abandoned", reason: "the service is closing" })
    expect(ran).toBe(0)
  })
})
