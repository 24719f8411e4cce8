// The dispatcher's passes follow and stop jobs through the status sync service: a layer given in its place is the
// one the passes call, and what it reports is what a pass reports.
import { KubeCluster } from "@dispatch/effects"
import { Effect, Layer } from "effect"
import { expect, test } from "vitest"
import type { DispatchOptions } from "../src/dispatch/Dispatcher.ts"
import { startDispatcher } from "./TestDispatcher.ts"
import { migrateTest as migrate, openPglite } from "./TestDatabase.ts"
import { StatusSyncService } from "../src/dispatch/StatusSync.ts"

test("a pass follows and stops jobs through the status sync service it was given", async () => {
  const db = await openPglite()
  await migrate(db)
  const calls: Array<string> = []
  const statusSync = () =>
    Layer.succeed(StatusSyncService, {
      follow: Effect.sync(() => (calls.push("follow"), { followed: 3, problems: ["job 7: lost"] })),
      stopCancelled: Effect.sync(() => (calls.push("stop"), 2))
    })
  // No queue is stored, so the cluster (an unreadable kubeconfig) is never reached.
  const cluster = Layer.orDie(KubeCluster({ kubeconfigPath: "/nonexistent/kubeconfig", callMs: 1000 })) as DispatchOptions["cluster"]
  const dispatcher = await startDispatcher(
    { cluster, autorun: false, syncMs: 0 },
    { clock: () => 0, entropy: (n) => Array.from({ length: n }, () => 1), secret: "00", reportUrl: "http://127.0.0.1:1/api/v1", statusSync },
    db
  )
  try {
    const report = await dispatcher.pass()
    expect(report).toMatchObject({ followed: 3, stopped: 2, problems: ["job 7: lost"] })
    expect(calls).toEqual(["follow", "stop"])
  } finally {
    await dispatcher.close()
    await db.close()
  }
})
