// Dioptra's list query (paging, sorting, search) as its Python client sends it, and the SQL a search becomes.
import { checkSearchFields, likePattern, parseSearch, Text, type InvalidSearch, type SearchTerm } from "@dispatch/jobs"
import { Result, Schema } from "effect"
import { PageQuery } from "./Paging.ts"

export { pageOf, type Page } from "./Paging.ts"

// Python's `requests` writes a bool parameter as `True`/`False`; marshmallow, upstream's decoder, also takes
// `true`/`false` and `1`/`0`.
/** A boolean query parameter as Dioptra's clients send it: `true`, `false`, `True`, `False`, `1` or `0`. */
export const BooleanParam = Schema.Literals(["true", "false", "True", "False", "1", "0"])
/** A boolean query parameter. */
export type BooleanParam = typeof BooleanParam.Type

/** True for the spellings of true. */
export const isTrue = (value: BooleanParam | undefined): boolean => value === "true" || value === "True" || value === "1"

/** Dioptra's list query: `index`, `pageLength`, `search` (its query language), `sortBy` one of `columns`,
 * `descending`, and `groupId` (the owning group, as the client's `get(group_id=...)` sends it). */
export const dioptraListQuery = <const Columns extends ReadonlyArray<string>>(columns: Columns) =>
  Schema.Struct({
    ...PageQuery.fields,
    search: Schema.optionalKey(Text(200)),
    sortBy: Schema.optionalKey(Schema.Literals(columns)),
    descending: Schema.optionalKey(BooleanParam),
    groupId: Schema.optionalKey(Schema.FiniteFromString.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(1)))
  })

/** A list query without sort columns of its own (sorted by id). */
export const DioptraPageQuery = Schema.Struct({
  ...PageQuery.fields,
  search: Schema.optionalKey(Text(200)),
  groupId: Schema.optionalKey(Schema.FiniteFromString.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(1)))
})

/** The terms of a list's `search` (none when absent), each naming one of `fields` or none; a search that does not
 * parse, or names a field not searchable, is refused. */
export const searchTerms = (search: string | undefined, fields: ReadonlyArray<string>): Result.Result<ReadonlyArray<SearchTerm>, InvalidSearch> =>
  search === undefined ? Result.succeed([]) : Result.flatMap(parseSearch(search), (terms) => checkSearchFields(search, terms, fields))

/** A SQL condition and its parameters, numbered from the `from` given to `searchCondition`. */
export interface SqlCondition {
  readonly where: string
  readonly params: ReadonlyArray<string>
}

/**
 * The SQL condition a `search` stands for over a list's searchable fields (name -> SQL text expression): each
 * term a `like` on its field, a bare term on any field, all terms required. Parameters are numbered from
 * `from` (`$from`, `$from+1`, ...). A search that does not parse, or names a field not searchable, is refused.
 */
export const searchCondition = (
  search: string | undefined,
  fields: Readonly<Record<string, string>>,
  from: number
): Result.Result<SqlCondition, InvalidSearch> => {
  if (search === undefined) return Result.succeed({ where: "true", params: [] })
  return Result.map(searchTerms(search, Object.keys(fields)), (terms) => {
    const params = terms.map(likePattern)
    const like = (expression: string, i: number) => `${expression} like $${from + i} escape '\\'`
    const clauses = terms.map((term, i) =>
      term.field === undefined ? `(${Object.values(fields).map((e) => like(e, i)).join(" or ")})` : like(fields[term.field] ?? "''", i)
    )
    return { where: clauses.length === 0 ? "true" : clauses.join(" and "), params }
  })
}
