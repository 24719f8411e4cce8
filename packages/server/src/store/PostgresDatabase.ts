import { Effect, Layer } from "effect"
import { databaseError, DatabaseKind, type DatabaseLayer } from "./Database.ts"
import { postgresClientLayer } from "./PostgresClient.ts"

export { statementNamer } from "./PostgresClient.ts"

/** The database on the PostgreSQL at `url`: a pool of `poolSize` connections, checked by one round trip when built
 * and ended when the layer's scope closes. */
export const postgresLayer = (url: string, poolSize?: number): DatabaseLayer =>
  Layer.merge(
    Layer.effectContext(Effect.mapError(Layer.build(postgresClientLayer(url, poolSize)), (cause) => databaseError("connect", cause))),
    Layer.succeed(DatabaseKind, "postgres")
  )
