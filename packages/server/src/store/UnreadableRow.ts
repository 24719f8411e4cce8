// A stored row that does not decode is the service's defect, neither the client's nor the database's: nothing the
// API accepts writes one. It is answered as an internal error, and logged naming each field and what it held.
import { Data, Effect, Schema, SchemaIssue } from "effect"

// What a value is, by its constructor's name (String, Number, BigInt, Array, Object...), for a reader of the log.
const kindOf = (value: unknown): string => (value === null ? "null" : ((Object(value) as { constructor?: { name?: string } }).constructor?.name ?? typeof value))

const issuesOf = SchemaIssue.makeFormatterStandardSchemaV1({
  leafHook: (issue) => ("input" in issue && issue.input !== undefined ? `${SchemaIssue.defaultLeafHook(issue)} (a ${kindOf(issue.input)})` : SchemaIssue.defaultLeafHook(issue))
})

/** A stored row did not decode: which row, and each field's problem with what it held. */
export class UnreadableRow extends Data.TaggedError("UnreadableRow")<{ readonly row: string; readonly problems: ReadonlyArray<string> }> {
  override get message() {
    return `${this.row} is stored in a form the service cannot read: ${this.problems.join("; ")}`
  }
}

/** Decodes the rows a statement answered; a row that does not decode is a defect (`UnreadableRow`) naming `row`. */
export const decodeRows =
  <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S, row: string) =>
  (rows: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<S["Type"]>> =>
    Schema.decodeUnknownEffect(Schema.Array(schema))(rows, { reportInput: true, errors: "all" }).pipe(
      Effect.catchTag("SchemaError", (error) =>
        Effect.die(new UnreadableRow({ row, problems: issuesOf(error.issue).issues.map((issue) => `${issue.message} at ${JSON.stringify(issue.path)}`) }))
      )
    )
