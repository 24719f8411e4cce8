// The simulator's controllers: Trainer's, JobSet's, Job's and Kueue's, the node's scheduler and kubelet, and the webhooks.
export { installControllers } from "./Install.ts"
export type { ContainerRuntime, PodEnd, RunFate } from "./kubelet/ContainerRuntime.ts"
export type {
  ControllerOptions,
  ExecOptions,
  KueueOptions,
  KueueQueueOptions,
  OutcomeRule,
  OutcomeScript,
  RunOutcome,
  RunResult,
  SeedQueue,
  TrainerOptions,
  WorkloadOptions
} from "./Options.ts"
