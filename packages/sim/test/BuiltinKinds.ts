// The built-in kinds as one registry, and readers of a kind's parts by plural, for tests that look at
// the schema or text of a built-in kind.
import type { FieldTree } from "../src/apiserver/validation/FieldTree.ts"
import { builtinKinds } from "../src/kinds/Builtin.ts"
import { KindRegistry } from "../src/kinds/KindRegistry.ts"
import { MessageTables } from "../src/http/ProtobufBody.ts"

/** The registry a default simulator serves. */
export const builtin = new KindRegistry(builtinKinds)

/** A built-in kind's schema, by plural ("open" for a plural no kind has). */
export const fieldsOf = (plural: string): FieldTree => builtin.byResource(plural)?.fields ?? "open"

/** A built-in kind's field descriptions, by plural. */
export const descriptionsOf = (plural: string): Readonly<Record<string, string>> => builtin.byResource(plural)?.descriptions ?? {}

/** The protobuf message tables a default simulator's HTTP face decodes with. */
export const builtinTables = new MessageTables(builtin)
