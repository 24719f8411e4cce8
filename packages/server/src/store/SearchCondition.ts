// Dioptra's list search as SQL: each term a `like` on its field's column, a bare term on any of them, all terms
// required. The terms were parsed and checked against the list's fields before they reach the store.
import { likePattern, type SearchTerm } from "@dispatch/jobs"
import type { SqlClient, Statement } from "effect/sql"

/** The SQL condition `terms` stand for over a list's searchable columns (field name -> the store's SQL expression). */
export const searchCondition = (sql: SqlClient.SqlClient, terms: ReadonlyArray<SearchTerm>, columns: Readonly<Record<string, string>>): Statement.Fragment =>
  sql.and(
    terms.map((term) => {
      const pattern = likePattern(term)
      const like = (column: string) => sql`${sql.literal(column)} like ${pattern} escape '\\'`
      return term.field === undefined ? sql.or(Object.values(columns).map(like)) : like(columns[term.field] ?? "''")
    })
  )
