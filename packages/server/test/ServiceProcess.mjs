// The job service in a process of its own, for tests that measure the service's process (its memory) rather
// than the test runner's: the built package (`npx tsc -b packages/server`), its tokens from DISPATCH_TEST_TOKENS
// (hashed entries, JSON), its data in DISPATCH_TEST_DATA_DIR. It prints {"url": ...} once it serves and stops on
// SIGTERM.
import { Result } from "effect"
import { serve } from "../dist/index.js"

const served = await serve({ tokens: JSON.parse(process.env.DISPATCH_TEST_TOKENS ?? "[]"), dataDir: process.env.DISPATCH_TEST_DATA_DIR })
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
