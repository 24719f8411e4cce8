import { Effect } from "effect"
import { PROBE_JOB_ID, type RuntimeRef } from "@dispatch/render"
import type { Backend } from "../Backend.ts"
import type { Cluster } from "../Cluster.ts"
import { checkRuntimeRules, decodeRequest, readRuntime } from "../Start.ts"
import { requireAccess } from "./Access.ts"
import type { LifecycleError } from "./LifecycleErrors.ts"

/** What the backend can do for a spec: the runtime it would copy, and what the adapter declares. */
export interface Capabilities {
  readonly runtime: RuntimeRef
  /** The seed has the adapter declare NativeRequeue no: a requeue is the supervisor's new submission. */
  readonly nativeRequeue: false
  /** The seed has the adapter declare NativeRestart no: a restart is the supervisor's new attempt. */
  readonly nativeRestart: false
}

/** Capabilities(spec): Start's runtime checks (steps 2-3) without creating anything. The spec must have
 * the wire shape (ErrInvalid); a runtime outside the list, missing or breaking the rules is ErrUnsupported. */
export const capabilities = (backend: Backend, spec: unknown): Effect.Effect<Capabilities, LifecycleError, Cluster> =>
  Effect.gen(function* () {
    yield* requireAccess(backend, "read")
    // Steps 2-3 read only the spec; the rest of the request is a fixed, valid placeholder so that the
    // shape check names the spec's own fields (spec.command, ...).
    const request = yield* decodeRequest({ job: PROBE_JOB_ID, generation: 0, submission: 1, attempt: 1, spec })
    const runtime = yield* readRuntime(backend.config, request)
    yield* checkRuntimeRules(backend.config, request, runtime)
    return { runtime: runtime.ref, nativeRequeue: false as const, nativeRestart: false as const }
  }).pipe(Effect.withSpan("dispatch.capabilities"))
