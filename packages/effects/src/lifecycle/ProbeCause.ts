// Why the probe's objects were not created, and the Backend that leaves. Pure: the table in
// docs/lifecycle.md is read off this file. A failed write is not a permission problem unless the cluster
// said so (RBAC's 403): one transient 503 must not make a backend read-only, which means "do not retry
// until permissions change".
import { type BackendConfig, runtimeLabel } from "@dispatch/render"
import type { Gate } from "../Backend.ts"
import type { ClusterError } from "../ClusterError.ts"
import type { StartError } from "../StartErrors.ts"
import { classifyWriteFailure } from "../WriteFailure.ts"

/** The gate state a failed probe write leaves, and every reason, the first naming the cause. */
export interface ProbeCause {
  readonly state: Exclude<Gate["state"], "open">
  readonly reasons: ReadonlyArray<string>
}

const probeRuntimeOf = (config: BackendConfig): string => `probeRuntime ${runtimeLabel(config.probeRuntime)}`

/** The cause of a failed probe write: the first create the cluster refused, when one was (`refused`);
 * otherwise Start's own failure, which came before any create (its runtime read, the runtime rules,
 * render, or a copy in the way). */
export const probeCause = (config: BackendConfig, refused: ClusterError | undefined, failure: StartError | undefined): ProbeCause => {
  if (refused !== undefined) {
    const why = classifyWriteFailure(refused)
    switch (why.class) {
      case "transient":
        return { state: "closed", reasons: [`the probe's write failed transiently (retry later)`, ...refused.reasons] }
      case "forbidden":
        return { state: "read-only", reasons: [`the probe may not write`, ...refused.reasons] }
      case "refused":
        return { state: "observe-only", reasons: [`the cluster refuses the probe on ${probeRuntimeOf(config)}`, ...refused.reasons] }
      case "missingNamespace":
        return { state: "closed", reasons: [`namespace "${why.namespace}" does not exist`, ...refused.reasons] }
    }
  }
  const reasons = failure?.reasons ?? []
  switch (failure?._tag) {
    case "ErrUnsupported":
    case "ErrInvalid":
      return { state: "observe-only", reasons: [`the ${probeRuntimeOf(config)} cannot be used`, ...reasons] }
    case "ErrReadOnly":
      return { state: "read-only", reasons: [`the probe may not write`, ...reasons] }
    case "ErrUnreachable":
    case "ErrOutcomeUnknown":
    case "ErrRejected":
    case undefined:
      return { state: "closed", reasons: [`the probe's Start failed before its TrainJob was created (retry later)`, ...reasons] }
  }
}
