import { Schema } from "effect"

/** The experiment named in the path does not exist (404). */
export class ExperimentNotFound extends Schema.TaggedError<ExperimentNotFound>()("ExperimentNotFound", {
  experiment: Schema.Number
}) {
  override get message() {
    return `experiment ${this.experiment} does not exist`
  }
  get status() {
    return 404 as const
  }
}

/** The entrypoint does not exist. */
export class EntrypointNotFound extends Schema.TaggedError<EntrypointNotFound>()("EntrypointNotFound", {
  entrypoint: Schema.Number
}) {
  override get message() {
    return `entrypoint ${this.entrypoint} does not exist`
  }
  get status() {
    return 400 as const
  }
}

/** The entrypoint exists but is not registered to the job's experiment. */
export class EntrypointNotInExperiment extends Schema.TaggedError<EntrypointNotInExperiment>()("EntrypointNotInExperiment", {
  entrypoint: Schema.Number,
  experiment: Schema.Number
}) {
  override get message() {
    return `entrypoint ${this.entrypoint} is not registered to experiment ${this.experiment}`
  }
  get status() {
    return 400 as const
  }
}

/** The queue does not exist. */
export class QueueNotFound extends Schema.TaggedError<QueueNotFound>()("QueueNotFound", {
  queue: Schema.Number
}) {
  override get message() {
    return `queue ${this.queue} does not exist`
  }
  get status() {
    return 400 as const
  }
}

// Upstream accepts a queue registered to any entrypoint of the experiment; the job's own entrypoint decides here.
/** The queue exists but is not one this entrypoint may run on. */
export class QueueNotAllowed extends Schema.TaggedError<QueueNotAllowed>()("QueueNotAllowed", {
  queue: Schema.Number,
  entrypoint: Schema.Number,
  allowed: Schema.Array(Schema.Number)
}) {
  override get message() {
    const allowed = this.allowed.length === 0 ? "it may run on no queue" : `its queues are ${this.allowed.join(", ")}`
    return `entrypoint ${this.entrypoint} may not run on queue ${this.queue}; ${allowed}`
  }
  get status() {
    return 400 as const
  }
}

/** The entrypoint has no snapshot with the id the job names (404). */
export class SnapshotNotFound extends Schema.TaggedError<SnapshotNotFound>()("SnapshotNotFound", {
  entrypoint: Schema.Number,
  snapshot: Schema.Number
}) {
  override get message() {
    return `entrypoint ${this.entrypoint} has no snapshot ${this.snapshot}`
  }
  get status() {
    return 404 as const
  }
}

/** Neither the entrypoint nor the queue's backend names a container image, so the job could never start. */
export class NoImage extends Schema.TaggedError<NoImage>()("NoImage", {
  entrypoint: Schema.Number,
  queue: Schema.Number
}) {
  override get message() {
    return `entrypoint ${this.entrypoint} names no image and queue ${this.queue} has no default image`
  }
  get status() {
    return 400 as const
  }
}

/** Neither the entrypoint nor the queue's backend names a command, so the job could never start. */
export class NoCommand extends Schema.TaggedError<NoCommand>()("NoCommand", {
  entrypoint: Schema.Number,
  queue: Schema.Number
}) {
  override get message() {
    return `entrypoint ${this.entrypoint} names no command and queue ${this.queue} has no default command`
  }
  get status() {
    return 400 as const
  }
}

/** The queue has no backend yet (a queue registered by a stock Dioptra client), so its jobs cannot start. */
export class NoBackend extends Schema.TaggedError<NoBackend>()("NoBackend", {
  queue: Schema.Number
}) {
  override get message() {
    return `queue ${this.queue} has no backend: give it one with PUT /queues/${this.queue} {backend} or start the service with --default-backend`
  }
  get status() {
    return 400 as const
  }
}

/** A problem with the resources a job refers to. */
export type ReferenceProblem =
  | ExperimentNotFound
  | EntrypointNotFound
  | EntrypointNotInExperiment
  | QueueNotFound
  | QueueNotAllowed
  | SnapshotNotFound
  | NoImage
  | NoCommand
