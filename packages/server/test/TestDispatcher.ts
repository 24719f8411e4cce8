// A dispatcher as the tests drive it from Promise code: made on a test's database in a scope of its own, its pass
// and its probes' end run to Promises, and closed by closing that scope.
import { Effect, Exit, Scope } from "effect"
import { makeDispatcher, type Dispatcher, type DispatcherParts, type DispatchOptions, type PassReport } from "../src/dispatch/Dispatcher.ts"
import type { TestDatabase } from "./TestDatabase.ts"

/** One pass of `dispatcher`. */
export const pass = (dispatcher: Dispatcher): Promise<PassReport> => Effect.runPromise(dispatcher.runPass)

/** Ends once every probe `dispatcher` started so far has stored its gate. */
export const proven = (dispatcher: Dispatcher): Promise<void> => Effect.runPromise(dispatcher.awaitProven)

/** Starts a dispatcher on `db` in a scope of its own, which `close` closes; with `autorun` its first pass begins at once. */
export const startDispatcher = async (options: DispatchOptions, parts: DispatcherParts, db: TestDatabase) => {
  const scope = Effect.runSync(Scope.make())
  const dispatcher = await Effect.runPromise(Scope.provide(Effect.provideContext(makeDispatcher(options, parts), db.context), scope))
  return { ...dispatcher, pass: () => pass(dispatcher), proven: () => proven(dispatcher), close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}
