import { Effect, Result } from "effect"
import { decodeConfig, type BackendConfig } from "@dispatch/render"
import type { Backend } from "../Backend.ts"
import type { Cluster } from "../Cluster.ts"
import { ErrInvalid } from "../StartErrors.ts"
import { probe } from "./Probe.ts"

/** A Backend for a decoded config, its gate proven by the preflight probe. */
export const factoryOf = (config: BackendConfig): Effect.Effect<Backend, never, Cluster> =>
  Effect.map(probe(config), (report) => ({ config, gate: report.gate }))

/** Factory(config): decodes the config (ErrInvalid naming every problem) and proves its gates. */
export const factory = (input: unknown): Effect.Effect<Backend, ErrInvalid, Cluster> =>
  Effect.gen(function* () {
    const decoded = decodeConfig(input)
    if (Result.isFailure(decoded)) return yield* new ErrInvalid({ reasons: decoded.failure.reasons })
    return yield* factoryOf(decoded.success)
  })
