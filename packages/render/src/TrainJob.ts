import { ceilSeconds } from "./Duration.ts"
import type { BackendConfig } from "./Config.ts"
import { renderEnv } from "./Env.ts"
import { imageOf } from "./Extensions.ts"
import type { JsonValue, KubeObject } from "./Json.ts"
import { identityLabels, trainJobAnnotations, trainJobLabels } from "./Metadata.ts"
import { probeSelectorKey } from "./Names.ts"
import { isProbe, PROBE_SELECTOR_VALUE } from "./Probe.ts"
import { prologueCommand } from "./Prologue.ts"
import { dispatchPatch } from "./RuntimePatch.ts"
import { TRAINER_API_VERSION, TRAINER_GROUP } from "./Upstream.ts"
import type { StartRequest } from "./Wire.ts"

/** spec.trainer, in a fixed key order: image, command, env, numNodes, numProcPerNode, resourcesPerNode. */
export const renderTrainer = (request: StartRequest, config: BackendConfig, name: string, torch: boolean): KubeObject => {
  const { spec } = request
  const procs = spec.procsPerNode ?? 0
  const gpus = spec.gpusPerNode ?? 0
  return {
    image: imageOf(spec),
    command: prologueCommand(spec.command),
    env: renderEnv(request, name, config.namespace).map((e) => ({ name: e.name, value: e.value })),
    numNodes: spec.nodes,
    ...(torch && procs > 0 ? { numProcPerNode: procs } : {}),
    // Quantities are written in canonical string form so a server round trip through Go types keeps them equal.
    ...(gpus > 0 ? { resourcesPerNode: { limits: { [config.gpuResource]: String(gpus) } } } : {})
  }
}

/** The TrainJob of a request that passed every check, on the runtime copy `name` whose trainer step is
 * `trainerStep` among the replicated jobs `steps`. */
export const renderTrainJob = (
  request: StartRequest,
  config: BackendConfig,
  name: string,
  trainerStep: string,
  torch: boolean,
  steps: ReadonlyArray<string>
): KubeObject => {
  const seconds = request.spec.timeLimit === undefined ? 0 : (ceilSeconds(request.spec.timeLimit) ?? 0)
  const probe = isProbe(imageOf(request.spec))
  const spec: Record<string, JsonValue> = {
    runtimeRef: { apiGroup: TRAINER_GROUP, kind: "TrainingRuntime", name },
    ...(config.mode === "plain" ? { suspend: true } : {}),
    trainer: renderTrainer(request, config, name, torch),
    ...(seconds > 0 ? { activeDeadlineSeconds: seconds } : {}),
    runtimePatches: [
      probe
        ? dispatchPatch(config, steps, identityLabels(request, config), { [probeSelectorKey(config)]: PROBE_SELECTOR_VALUE })
        : dispatchPatch(config, [trainerStep], identityLabels(request, config), undefined)
    ]
  }
  return {
    apiVersion: TRAINER_API_VERSION,
    kind: "TrainJob",
    metadata: { name, namespace: config.namespace, labels: { ...trainJobLabels(request, config) }, annotations: { ...trainJobAnnotations(request, config) } },
    spec
  }
}
