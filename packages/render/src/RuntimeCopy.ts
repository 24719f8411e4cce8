import type { BackendConfig } from "./Config.ts"
import { isRecord, jsonEqual, pathOf, type JsonValue, type KubeObject } from "./Json.ts"
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
  if (!isRecord(existingCopy) || !isRecord(source)) return false
  const owners = pathOf(existingCopy, ["metadata", "ownerReferences"])
  if (owners !== undefined && owners !== null && !(Array.isArray(owners) && owners.length === 0)) return false
  const copySpec = pathOf(existingCopy, ["spec"])
  const sourceSpec = pathOf(source, ["spec"])
  return copySpec !== undefined && sourceSpec !== undefined && jsonEqual(copySpec, sourceSpec)
}
