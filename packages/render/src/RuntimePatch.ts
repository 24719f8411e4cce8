import type { BackendConfig } from "./Config.ts"
import type { KubeObject } from "./Json.ts"
import type { StringMap } from "./Metadata.ts"
import { patchManager } from "./Names.ts"

/**
 * dispatch's one runtime patch: it targets the trainer step only, labels its pods with the job's
 * identity, and, for the probe, adds a node selector that no node matches.
 */
export const dispatchPatch = (
  config: BackendConfig,
  trainerStep: string,
  podLabels: StringMap,
  nodeSelector: StringMap | undefined
): KubeObject => ({
  manager: patchManager(config),
  trainingRuntimeSpec: {
    template: {
      spec: {
        replicatedJobs: [
          {
            name: trainerStep,
            template: {
              spec: {
                template: {
                  metadata: { labels: { ...podLabels } },
                  ...(nodeSelector === undefined ? {} : { spec: { nodeSelector: { ...nodeSelector } } })
                }
              }
            }
          }
        ]
      }
    }
  }
})
