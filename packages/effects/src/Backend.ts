import type { BackendConfig, ErrorKind } from "@dispatch/render"

/** How far a backend has been proven: the first gate not proven decides what Start may do. */
export type Gate =
  | { readonly state: "open" }
  /** The reach gate failed: the API did not answer or the runtimes could not be read. */
  | { readonly state: "closed"; readonly reason: string }
  /** The write gate failed: the probe's objects could not be created. */
  | { readonly state: "read-only"; readonly reason: string }
  /** The launch gate failed: the probe's read-back or its Workload did not check out. */
  | { readonly state: "observe-only"; readonly reason: string }

/** A configured backend and the gate state its Factory proved. */
export interface Backend {
  readonly config: BackendConfig
  readonly gate: Gate
}

/** A backend whose gates are all proven. */
export const openBackend = (config: BackendConfig): Backend => ({ config, gate: { state: "open" } })

/** Why a gate refuses work: the error kind and the reason naming the gate not proven. */
export interface GateRefusal {
  readonly error: Extract<ErrorKind, "ErrUnreachable" | "ErrReadOnly" | "ErrUnsupported">
  readonly reason: string
}

/** The refusal a gate stands for (undefined when open): closed -> ErrUnreachable, read-only ->
 * ErrReadOnly, observe-only -> ErrUnsupported. Start's step 1, the lifecycle's access checks and the
 * CLI's probe all say it this way. */
export const gateRefusal = (gate: Gate): GateRefusal | undefined => {
  switch (gate.state) {
    case "open":
      return undefined
    case "closed":
      return { error: "ErrUnreachable", reason: `the reach gate is not proven: ${gate.reason}` }
    case "read-only":
      return { error: "ErrReadOnly", reason: `the write gate is not proven: ${gate.reason}` }
    case "observe-only":
      return { error: "ErrUnsupported", reason: `the launch gate is not proven: ${gate.reason}` }
  }
}
