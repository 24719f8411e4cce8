// The service's PostgreSQL database, recording every statement sent to it: a bench replays exactly what the service
// sends (bench/lib/pgbench.mjs), so what it compares is the service's own cost beside its database's.
import pgUtils from "../../packages/server/node_modules/pg/lib/utils.js"
import { databaseLayer } from "../../packages/server/dist/index.js"
import { openPostgres } from "../../packages/server/dist/store/PostgresDatabase.js"

/** A database layer over PostgreSQL at `databaseUrl` that pushes onto `sent` every statement and the text of its
 * parameters as node-postgres sends them (a transaction's BEGIN and COMMIT too). */
export const recordedPostgres = (databaseUrl, sent) => {
  const recorded = (sql) => ({
    ...sql,
    query: (text, params = []) => (sent.push({ text, params: params.map((p) => pgUtils.prepareValue(p)) }), sql.query(text, params)),
    exec: (script) => (sent.push({ text: script, params: [] }), sql.exec(script))
  })
  return databaseLayer("recorded PostgreSQL", async () => {
    const db = await openPostgres(databaseUrl)
    return {
      ...db,
      ...recorded(db),
      transaction: (body) =>
        db.transaction(async (sql) => {
          sent.push({ text: "begin", params: [] })
          const result = await body(recorded(sql))
          sent.push({ text: "commit", params: [] })
          return result
        })
    }
  })
}
