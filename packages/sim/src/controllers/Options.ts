// What a simulator's user configures about its controllers: how Trainer's jobs end, and Kueue's queues,
// quotas and admission checks.
import type { KubeObject, SystemClient } from "../Api.ts"

/** How a simulated training run ends. */
export type RunResult = "Complete" | "Failed"

/** The scripted end of one TrainJob's run: its result, how long after it started running, and why. */
export interface RunOutcome {
  readonly result: RunResult
  readonly afterMs: number
  readonly message?: string
}

/** One row of an outcome table: matches a TrainJob by name and/or labels (all given must match). */
export interface OutcomeRule {
  readonly name?: string
  readonly labels?: Readonly<Record<string, string>>
  readonly result: RunResult
  /** Defaults to TrainerOptions.runTimeMs. */
  readonly afterMs?: number
  readonly message?: string
}

/** Scripted outcomes: a function (undefined = default outcome) or a table whose first matching row wins. */
export type OutcomeScript = ((job: KubeObject) => RunOutcome | undefined) | ReadonlyArray<OutcomeRule>

/** The simulated Kubeflow Trainer. */
export interface TrainerOptions {
  /** Default true: Trainer's webhook and controller run. */
  readonly installed?: boolean
  /** How long a run lasts when no script says otherwise (default 5000 ms); it then completes. */
  readonly runTimeMs?: number
  readonly outcomes?: OutcomeScript
  /** Called on every clock step for each running TrainJob (for jobs that post logs or metrics); its writes store copies of what they are handed. */
  readonly onRun?: (job: KubeObject, system: SystemClient) => void
}

/** One Kueue LocalQueue, with the quota and admission checks of the ClusterQueue behind it. */
export interface KueueQueueOptions {
  /** Name reported in status.admission.clusterQueue (default: the queue's own name). */
  readonly clusterQueue?: string
  /** GPUs (nvidia.com/gpu) that the queue's admitted workloads may hold at once (default: unlimited). */
  readonly gpus?: number
  /** Number of workloads the queue may hold admitted at once (default: unlimited). */
  readonly workloads?: number
  /** CPU cores the queue's admitted workloads may request at once (default: unlimited). */
  readonly cpu?: number
  /** Memory in bytes the queue's admitted workloads may request at once (default: unlimited). */
  readonly memory?: number
  /** Admission checks every workload of this queue must pass (each must be Ready to be admitted). */
  readonly admissionChecks?: ReadonlyArray<string>
}

/** A LocalQueue and the ClusterQueue behind it, created as objects when the clock first moves. */
export interface SeedQueue {
  readonly localQueue: string
  /** Default "default". */
  readonly namespace?: string
  readonly clusterQueue: string
  /** Nominal quotas in Kubernetes' quantity form (cpu "8", memory "64Gi", GPUs 4); absent = not counted. */
  readonly quota?: { readonly cpu?: string | number; readonly memory?: string | number; readonly gpus?: number }
  /** Admission checks the ClusterQueue requires. */
  readonly admissionChecks?: ReadonlyArray<string>
}

/** The simulated Kueue. */
export interface KueueOptions {
  /**
   * LocalQueue and ClusterQueue objects to create. A Workload whose LocalQueue exists as an object is
   * admitted by its ClusterQueue's nominal quota and checks; one whose does not falls back to `queues`.
   */
  readonly seedQueues?: ReadonlyArray<SeedQueue>
  /** Default true when Kueue options are given at all. */
  readonly installed?: boolean
  /** Delay between a TrainJob's creation and its Workload's (default 0). */
  readonly workloadDelayMs?: number
  /** LocalQueues by name; a queue not listed makes its workloads Inadmissible. */
  readonly queues?: Readonly<Record<string, KueueQueueOptions>>
  /** AdmissionCheck objects to create and keep Active (those named by queues are created too). */
  readonly admissionChecks?: ReadonlyArray<string>
  /** spec.controllerName of the AdmissionChecks created (default "dispatch.sim/admission-check"). */
  readonly checkControllerName?: string
}

/** How the exec runtime runs containers (WorkloadOptions.exec). */
export interface ExecOptions {
  /** The shell the command runs through (default /bin/sh). */
  readonly shell?: string
  /** Grace between SIGTERM and SIGKILL when a pod sets no terminationGracePeriodSeconds (default 30000 ms). */
  readonly graceMs?: number
  /** Directory a container runs in when its workingDir is unset or does not exist here (default: the current one). */
  readonly workdir?: string
}

/** The object tree a TrainJob runs as (JobSet, Jobs, Pods) and the one node its pods run on. */
export interface WorkloadOptions {
  /** Default true: Trainer makes JobSets, and the JobSet and Job controllers, scheduler and kubelet run. */
  readonly installed?: boolean
  /** The node's name (default "sim-node"). */
  readonly nodeName?: string
  /** The node's labels, which pods' nodeSelectors must match (default: hostname, os linux, arch amd64). */
  readonly nodeLabels?: Readonly<Record<string, string>>
  /**
   * Runs each pod's containers as local child processes (true, or how to run them); their exits end
   * the pods, Jobs, JobSet and TrainJob. Default: pods run by the clock and write a synthetic log.
   */
  readonly exec?: boolean | ExecOptions
}

/** Configuration of the simulator's controllers (SimulatorOptions.controllers). */
export interface ControllerOptions {
  readonly trainer?: TrainerOptions
  readonly workloads?: WorkloadOptions
  /** Absent: Kueue is not installed, queue-labelled jobs are left alone. */
  readonly kueue?: KueueOptions
}
