// The simulator's controllers: Trainer's and Kueue's webhooks and controllers.
export { installControllers } from "./Install.ts"
export type {
  ControllerOptions,
  KueueOptions,
  KueueQueueOptions,
  OutcomeRule,
  OutcomeScript,
  RunOutcome,
  RunResult,
  TrainerOptions
} from "./Options.ts"
