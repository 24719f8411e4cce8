import type { BackendConfig } from "./Config.ts"
import type { KubeObject } from "./Json.ts"
import type { StringMap } from "./Metadata.ts"
import { patchManager } from "./Names.ts"

/**
 * dispatch's one runtime patch: it labels the pods of the replicated jobs it targets with the job's
 * identity and, for the probe, adds a node selector that no node matches. A job's patch targets its
 * trainer step; the probe's targets every replicated job, so none of its pods can be scheduled.
 */
export const dispatchPatch = (
  config: BackendConfig,
  targets: ReadonlyArray<string>,
  podLabels: StringMap,
  nodeSelector: StringMap | undefined
): KubeObject => ({
  manager: patchManager(config),
  trainingRuntimeSpec: {
    template: {
      spec: {
        replicatedJobs: targets.map((name) => ({
          name,
          template: {
            spec: {
              template: {
                metadata: { labels: { ...podLabels } },
                ...(nodeSelector === undefined ? {} : { spec: { nodeSelector: { ...nodeSelector } } })
              }
            }
          }
        }))
      }
    }
  }
})
