import { Schema } from "effect"

/** The entrypoint's graph has a swap the job selected no task alias for. */
export class MissingSwap extends Schema.TaggedError<MissingSwap>()("MissingSwap", {
  swap: Schema.String,
  choices: Schema.Array(Schema.String)
}) {
  override get message() {
    return `swap "${this.swap}" needs a task alias, one of: ${this.choices.join(", ")}`
  }
  get status() {
    return 400 as const
  }
}

// Upstream does not detect a repeated swap and silently runs one of the selections.
/** The job selected a task alias for the same swap more than once. */
export class DuplicateSwap extends Schema.TaggedError<DuplicateSwap>()("DuplicateSwap", {
  swap: Schema.String,
  aliases: Schema.Array(Schema.String)
}) {
  override get message() {
    return `swap "${this.swap}" is selected ${this.aliases.length} times (${this.aliases.join(", ")}); select it once`
  }
  get status() {
    return 400 as const
  }
}

/** The job selected a swap the entrypoint's graph does not have. */
export class UnknownSwap extends Schema.TaggedError<UnknownSwap>()("UnknownSwap", {
  swap: Schema.String,
  known: Schema.Array(Schema.String)
}) {
  override get message() {
    const known = this.known.length === 0 ? "the graph has no swaps" : `the graph's swaps are: ${this.known.join(", ")}`
    return `swap "${this.swap}" is not in the entrypoint's task graph; ${known}`
  }
  get status() {
    return 400 as const
  }
}

/** The job selected a task alias that a step using the swap does not define; one problem however many steps. */
export class UnknownTaskAlias extends Schema.TaggedError<UnknownTaskAlias>()("UnknownTaskAlias", {
  swap: Schema.String,
  alias: Schema.String,
  steps: Schema.Array(Schema.String),
  choices: Schema.Array(Schema.String)
}) {
  override get message() {
    const steps = this.steps.map((s) => `"${s}"`).join(", ")
    const choices = this.choices.length === 0 ? "no alias is offered by every step using it" : `choices: ${this.choices.join(", ")}`
    return `task alias "${this.alias}" is not a choice of swap "${this.swap}" in step ${steps}; ${choices}`
  }
  get status() {
    return 400 as const
  }
}

/** Any problem with a job's swap selections. */
export type SwapProblem = MissingSwap | DuplicateSwap | UnknownSwap | UnknownTaskAlias
