import { Effect } from "effect"
import type { Backend } from "../Backend.ts"
import { checkGates } from "../Start.ts"
import type { StartError } from "../StartErrors.ts"

/** What an operation needs of a backend: to read (Find, Capabilities), to write (Hold, Stop), or to
 * launch a job (Open, Release). */
export type Access = "read" | "write" | "launch"

// Which gate states refuse each access; the refusal itself is Start's step 1, so both name the gate alike.
const refusedBy: Readonly<Record<Access, ReadonlyArray<Backend["gate"]["state"]>>> = {
  read: ["closed"],
  write: ["closed", "read-only"],
  launch: ["closed", "read-only", "observe-only"]
}

/** Refuses an operation the backend's gates do not allow: closed -> ErrUnreachable, read-only ->
 * ErrReadOnly, observe-only -> ErrUnsupported, each naming the gate not proven. */
export const requireAccess = (backend: Backend, access: Access): Effect.Effect<void, StartError> =>
  refusedBy[access].includes(backend.gate.state) ? checkGates(backend) : Effect.void
