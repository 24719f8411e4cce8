// The service's PostgreSQL database, recording every statement sent to it: a bench replays exactly what the service
// sends (bench/lib/pgbench.mjs), so what it compares is the service's own cost beside its database's.
import { Effect, Layer } from "../../packages/server/node_modules/effect/dist/index.js"
import pgUtils from "../../packages/server/node_modules/pg/lib/utils.js"
import { postgresLayer, tappedDatabase } from "../../packages/server/dist/index.js"

/** A database layer over PostgreSQL at `databaseUrl` that pushes onto `sent` every statement and the text of its
 * parameters as node-postgres sends them (a transaction's BEGIN and COMMIT too). */
export const recordedPostgres = (databaseUrl, sent) =>
  Layer.unwrap(
    Effect.map(Layer.build(postgresLayer(databaseUrl)), (database) =>
      tappedDatabase(database, (text, params, send) =>
        Effect.andThen(
          Effect.sync(() => sent.push({ text, params: params.map((p) => pgUtils.prepareValue(p)) })),
          send
        )
      )
    )
  )
