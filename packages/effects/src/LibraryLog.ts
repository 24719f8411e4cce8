// dispatch's own log lines are for the services that ask for them, not for every program that imports
// the library: Effect logs at Info by default, so a library that logged at Info would print on every
// caller's stdout. A line below Warn is written only when the caller has chosen how logs are handled:
// it provided References.MinimumLogLevel (any level) or its own loggers (Logger.layer and the like).
import { Effect, type Fiber, LogLevel, References } from "effect"

/** Whether libraryLog writes a line at `level` on `fiber`: at Warn or more severe always; below, when the
 * caller asked for logs and its minimum level lets the line through. */
export const libraryLogWrites = (fiber: Fiber.Fiber<unknown, unknown>, level: LogLevel.Severity): boolean => {
  if (LogLevel.isGreaterThanOrEqualTo(level, "Warn")) return true
  const chosen = fiber.context.mapUnsafe
  const asked = chosen.has(References.MinimumLogLevel.key) || chosen.has(References.CurrentLoggers.key)
  return asked && !LogLevel.isLessThan(level, fiber.getRef(References.MinimumLogLevel))
}

// Start logs each step, and most callers log none of it: the decision is read off the running fiber in one
// step, and a line below the caller's minimum level is dropped here rather than built for Effect to drop.
/** Logs `message` at `level` when the level is Warn or more severe, or the caller asked for logs; otherwise nothing. */
export const libraryLog = (level: LogLevel.Severity, message: string): Effect.Effect<void> =>
  Effect.withFiber((fiber) => (libraryLogWrites(fiber, level) ? Effect.logWithLevel(level)(message) : Effect.void))
