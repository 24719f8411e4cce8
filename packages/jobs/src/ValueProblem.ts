import { Schema } from "effect"

/** The job gives a value for a name that is not a parameter of the entrypoint. */
export class UnknownValue extends Schema.TaggedError<UnknownValue>()("UnknownValue", {
  parameter: Schema.String,
  known: Schema.Array(Schema.String)
}) {
  override get message() {
    const known = this.known.length === 0 ? "the entrypoint has no parameters" : `parameters: ${this.known.join(", ")}`
    return `"${this.parameter}" is not a parameter of the entrypoint; ${known}`
  }
  get status() {
    return 400 as const
  }
}

/** A parameter with no default got no value. */
export class MissingValue extends Schema.TaggedError<MissingValue>()("MissingValue", {
  parameter: Schema.String
}) {
  override get message() {
    return `parameter "${this.parameter}" has no default and needs a value`
  }
  get status() {
    return 400 as const
  }
}

/** A value (given, or the parameter's default) does not coerce to the parameter's type. */
export class UncoercibleValue extends Schema.TaggedError<UncoercibleValue>()("UncoercibleValue", {
  parameter: Schema.String,
  type: Schema.String,
  value: Schema.String,
  fromDefault: Schema.Boolean,
  reason: Schema.String
}) {
  override get message() {
    const which = this.fromDefault ? "the default value" : "value"
    return `${which} ${JSON.stringify(this.value)} of parameter "${this.parameter}" is not a ${this.type}: ${this.reason}`
  }
  get status() {
    return 400 as const
  }
}

/** A value (given, or the parameter's default) whose type parses it as JSON nests deeper than the bound: no store
 * or answer could walk it safely, so it is refused before it is parsed. */
export class ValueTooDeep extends Schema.TaggedError<ValueTooDeep>()("ValueTooDeep", {
  parameter: Schema.String,
  type: Schema.String,
  fromDefault: Schema.Boolean,
  /** The most levels a value may nest. */
  limit: Schema.Number,
  /** Its length in characters. */
  length: Schema.Number
}) {
  override get message() {
    const which = this.fromDefault ? "the default value" : "the value"
    return `${which} of parameter "${this.parameter}", a ${this.type} of ${this.length} characters, nests more than ${this.limit} levels deep; at most ${this.limit} levels are accepted`
  }
  get status() {
    return 400 as const
  }
}

/** The job gives an artifact value for a name that is not an artifact parameter of the entrypoint. */
export class UnknownArtifactValue extends Schema.TaggedError<UnknownArtifactValue>()("UnknownArtifactValue", {
  parameter: Schema.String,
  known: Schema.Array(Schema.String)
}) {
  override get message() {
    const known = this.known.length === 0 ? "the entrypoint has no artifact parameters" : `artifact parameters: ${this.known.join(", ")}`
    return `"${this.parameter}" is not an artifact parameter of the entrypoint; ${known}`
  }
  get status() {
    return 400 as const
  }
}

/** An artifact parameter got no artifact. */
export class MissingArtifactValue extends Schema.TaggedError<MissingArtifactValue>()("MissingArtifactValue", {
  parameter: Schema.String
}) {
  override get message() {
    return `artifact parameter "${this.parameter}" needs an artifact {id, snapshotId}`
  }
  get status() {
    return 400 as const
  }
}

/** The artifact, or the snapshot of it, that an artifact value names does not exist (404). */
export class ArtifactNotFound extends Schema.TaggedError<ArtifactNotFound>()("ArtifactNotFound", {
  parameter: Schema.String,
  artifact: Schema.Number,
  snapshot: Schema.Number
}) {
  override get message() {
    return `artifact parameter "${this.parameter}": artifact ${this.artifact} snapshot ${this.snapshot} does not exist`
  }
  get status() {
    return 404 as const
  }
}

/** The artifact an artifact value names is not of the type the parameter loads. */
export class ArtifactTypeMismatch extends Schema.TaggedError<ArtifactTypeMismatch>()("ArtifactTypeMismatch", {
  parameter: Schema.String,
  artifact: Schema.Number,
  expected: Schema.String,
  actual: Schema.String
}) {
  override get message() {
    return `artifact parameter "${this.parameter}" loads a ${this.expected}, but artifact ${this.artifact} is a ${this.actual}`
  }
  get status() {
    return 400 as const
  }
}

/** A problem with a job's values or artifact values. */
export type ValueProblem =
  | UnknownValue
  | MissingValue
  | UncoercibleValue
  | ValueTooDeep
  | UnknownArtifactValue
  | MissingArtifactValue
  | ArtifactNotFound
  | ArtifactTypeMismatch
