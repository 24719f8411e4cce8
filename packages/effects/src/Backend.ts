import type { BackendConfig } from "@dispatch/render"

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
