import { valueAt } from "@dispatch/kube"
import type { BackendConfig } from "./Config.ts"
import { jsonEqual, type JsonValue, type KubeObject } from "./Json.ts"
import { copyAnnotations, copyLabels } from "./Metadata.ts"
import { TRAINER_API_VERSION } from "./Upstream.ts"
import type { RuntimeRef, StartRequest } from "./Wire.ts"

/** The runtime copy: a TrainingRuntime named `name` in the configured namespace whose spec is the source's, verbatim. */
export const renderRuntimeCopy = (
  request: StartRequest,
  config: BackendConfig,
  name: string,
  ref: RuntimeRef,
  source: unknown,
  sourceSpec: JsonValue
): KubeObject => ({
  apiVersion: TRAINER_API_VERSION,
  kind: "TrainingRuntime",
  metadata: {
    name,
    namespace: config.namespace,
    labels: { ...copyLabels(request, config, source) },
    annotations: { ...copyAnnotations(request, config, ref) }
  },
  spec: sourceSpec
})

/**
 * Start step 5's reuse rule: a copy found by a retried Start may be reused only if nobody owns it yet
 * and its spec equals the source runtime's.
 */
export const copyMatchesSource = (existingCopy: unknown, source: unknown): boolean => {
  const owners = valueAt(existingCopy, ["metadata", "ownerReferences"])
  // No owner is an absent, null or empty list; anything else, even malformed, counts as owned.
  if (owners !== undefined && owners !== null && !(Array.isArray(owners) && owners.length === 0)) return false
  // valueAt reads nothing from a value that is not an object, and a runtime without a spec matches nothing.
  const copySpec = valueAt(existingCopy, ["spec"])
  return copySpec !== undefined && jsonEqual(copySpec, valueAt(source, ["spec"]))
}
