// The job service in a process of its own, for tests that measure the service's process (its memory, its exit)
// rather than the test runner's: the built package (`npx tsc -b packages/server`), its tokens from
// DISPATCH_TEST_TOKENS (hashed entries, JSON), its data in DISPATCH_TEST_DATA_DIR. With DISPATCH_TEST_KUBECONFIG it
// dispatches to that cluster as instance DISPATCH_TEST_INSTANCE, each call bounded by DISPATCH_TEST_CALL_MS. It
// prints {"url": ...} once it serves and, on SIGTERM, closes and exits 0 (1 if closing failed).
import { KubeCluster } from "@dispatch/effects"
import { Layer, Result } from "effect"
import { serve } from "../dist/index.js"

const kubeconfigPath = process.env.DISPATCH_TEST_KUBECONFIG
const dispatch =
  kubeconfigPath === undefined
    ? {}
    : {
        dispatch: {
          cluster: Layer.orDie(KubeCluster({ kubeconfigPath, callMs: Number(process.env.DISPATCH_TEST_CALL_MS ?? 5000) })),
          instance: process.env.DISPATCH_TEST_INSTANCE,
          pollMs: 30,
          syncMs: 100,
          log: () => undefined
        }
      }
const served = await serve({ tokens: JSON.parse(process.env.DISPATCH_TEST_TOKENS ?? "[]"), dataDir: process.env.DISPATCH_TEST_DATA_DIR, ...dispatch })
if (Result.isFailure(served)) {
  process.stderr.write(`${served.failure.message}\n`)
  process.exit(1)
}
process.stdout.write(`${JSON.stringify({ url: served.success.url })}\n`)
process.on("SIGTERM", () => {
  served.success.close().then(
    () => process.exit(0),
    () => process.exit(1)
  )
})
