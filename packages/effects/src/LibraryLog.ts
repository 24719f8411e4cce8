// dispatch's own log lines are for the services that ask for them, not for every program that imports
// the library: Effect logs at Info by default, so a library that logged at Info would print on every
// caller's stdout. A line below Warn is written only when the caller has chosen how logs are handled:
// it provided References.MinimumLogLevel (any level) or its own loggers (Logger.layer and the like).
import { Effect, LogLevel, References } from "effect"

/** Whether the running fiber's caller chose a minimum log level or loggers of its own. */
const askedForLogs: Effect.Effect<boolean> = Effect.map(Effect.context<never>(),
  (context) => context.mapUnsafe.has(References.MinimumLogLevel.key) || context.mapUnsafe.has(References.CurrentLoggers.key)
)

/** Logs `message` at `level` when the level is Warn or more severe, or the caller asked for logs; otherwise nothing. */
export const libraryLog = (level: LogLevel.Severity, message: string): Effect.Effect<void> =>
  LogLevel.isGreaterThanOrEqualTo(level, "Warn")
    ? Effect.logWithLevel(level)(message)
    : Effect.flatMap(askedForLogs, (asked) => (asked ? Effect.logWithLevel(level)(message) : Effect.void))
