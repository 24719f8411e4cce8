import { Schema } from "effect"
import { maxJsonDepth } from "./JsonDepth.ts"
import { ParameterType, valueDepth } from "./ParameterType.ts"
import { ResourceId } from "./ResourceId.ts"
import { TaskGraph } from "./TaskGraph.ts"
import { Description, Name, Text, textLimits } from "./Text.ts"

/** A parameter of an entrypoint: its name, its type, and the wire value used when a job gives none. */
export const EntrypointParameter = Schema.Struct({
  name: Name,
  type: ParameterType,
  defaultValue: Schema.optionalKey(Description)
})
/** A parameter of an entrypoint. */
export type EntrypointParameter = typeof EntrypointParameter.Type

/** An artifact input of an entrypoint: its name and the artifact type it loads. */
export const ArtifactParameter = Schema.Struct({ name: Name, artifactType: Text(textLimits.name) })
/** An artifact input of an entrypoint. */
export type ArtifactParameter = typeof ArtifactParameter.Type

// dispatch wraps the command in a four-item prologue and Trainer allows 128 items, hence 124; an image
// reference longer than Trainer's 500 characters would never be admitted.
/** The container image an entrypoint runs in (a non-empty reference of at most 500 characters). */
export const ImageRef = Schema.NonEmptyString.check(Schema.isMaxLength(500))
/** The command an entrypoint runs: 1 to 124 items, each at most Trainer's 1 MiB, free of NUL and unpaired surrogates. */
export const Command = Schema.Array(Text(1_048_576)).check(Schema.isMinLength(1), Schema.isMaxLength(124))

const duplicateNames = (names: ReadonlyArray<string>): Array<string> =>
  [...new Set(names.filter((name, index) => names.indexOf(name) !== index))]

/** One snapshot (version) of an entrypoint: everything a job created from it runs with. */
export const EntrypointVersion = Schema.Struct({
  snapshot: ResourceId,
  parameters: Schema.Array(EntrypointParameter),
  artifactParameters: Schema.Array(ArtifactParameter),
  taskGraph: TaskGraph,
  image: Schema.optionalKey(ImageRef),
  /** Absent for an entrypoint made by a stock Dioptra client: the queue's backend then names the command. */
  command: Schema.optionalKey(Command)
}).check(
  Schema.makeFilter((version) => [
    ...duplicateNames([...version.parameters, ...version.artifactParameters].map((p) => p.name)).map((name) => `parameter "${name}" is declared more than once`),
    // A default every job would be refused for is refused when declared.
    ...version.parameters
      .filter((p) => p.defaultValue !== undefined && valueDepth(p.type, p.defaultValue) > maxJsonDepth)
      .map((p) => `the default of parameter "${p.name}", a ${p.type} of ${p.defaultValue?.length ?? 0} characters, nests more than ${maxJsonDepth} levels deep; at most ${maxJsonDepth} levels are accepted`)
  ])
)
/** One snapshot (version) of an entrypoint. */
export type EntrypointVersion = typeof EntrypointVersion.Type

// Queue permission is not versioned: it is the current registration that decides where a job may run.
/** An entrypoint: the queues it may run on and its snapshots, the highest being the latest. */
export const Entrypoint = Schema.Struct({
  id: ResourceId,
  name: Schema.String,
  description: Schema.optionalKey(Description),
  queues: Schema.Array(ResourceId),
  snapshots: Schema.Array(EntrypointVersion).check(Schema.isMinLength(1))
}).check(
  Schema.makeFilter((entrypoint) =>
    duplicateNames(entrypoint.snapshots.map((v) => String(v.snapshot))).map((id) => `snapshot ${id} appears more than once`)
  )
)
/** An entrypoint. */
export type Entrypoint = typeof Entrypoint.Type

/** The snapshot a job runs: the one it names, else the latest; undefined when the named one does not exist. */
export const entrypointVersion = (entrypoint: Entrypoint, snapshot?: number | null): EntrypointVersion | undefined =>
  snapshot === undefined || snapshot === null
    ? entrypoint.snapshots.reduce<EntrypointVersion | undefined>((latest, v) => (latest === undefined || v.snapshot > latest.snapshot ? v : latest), undefined)
    : entrypoint.snapshots.find((v) => v.snapshot === snapshot)
