// What runs a pod's containers for the kubelet: the clock runtime (the default), whose containers end
// when their TrainJob's run ends and write a synthetic log, or the process runtime (`exec`), whose
// containers are local child processes.
import type { KubeObject } from "../../Api.ts"
import { containersOf, type ExitCode } from "./PodStatuses.ts"
import { syntheticLog, type LogLine } from "./SyntheticLogs.ts"

/** How the TrainJob's run says a pod ends: undefined while it runs. */
export interface RunFate {
  readonly exitCode: number
  readonly reason?: string
  readonly message?: string
}

/** How a pod's containers ended, once all of them have. */
export interface PodEnd {
  readonly containers: Readonly<Record<string, ExitCode>>
  readonly reason?: string
  readonly message?: string
}

/** The kubelet's view of what runs containers. */
export interface ContainerRuntime {
  /** Starts the containers of a pod the kubelet just bound and marked Running. */
  start(pod: KubeObject): void
  /** How the pod's containers ended (undefined while any runs), given what its TrainJob's run says. */
  ended(pod: KubeObject, fate: RunFate | undefined): PodEnd | undefined
  /** Stops the containers of a pod that is gone or going. */
  stop(pod: KubeObject): void
  /** The lines `container` of `pod` has written by `now`. */
  log(pod: KubeObject, container: string, now: number): ReadonlyArray<LogLine>
  /** Calls `listener` with a pod's key when its containers end on their own time (not the clock's). */
  onEnded(listener: (key: string) => void): void
  /** Stops every container and waits until none is left. */
  close(): Promise<void>
}

/** Containers that live on the simulator's clock: they end as their TrainJob's run ends. */
export const clockRuntime: ContainerRuntime = {
  start: () => {},
  ended: (pod, fate) =>
    fate === undefined
      ? undefined
      : {
          containers: Object.fromEntries(containersOf(pod).map((c) => [c.name, { exitCode: fate.exitCode }])),
          ...(fate.reason === undefined ? {} : { reason: fate.reason }),
          ...(fate.message === undefined ? {} : { message: fate.message })
        },
  stop: () => {},
  log: syntheticLog,
  onEnded: () => {},
  close: async () => {}
}
