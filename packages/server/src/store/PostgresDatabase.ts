import { Cause, Effect, Exit, Layer, Scope } from "effect"
import { databaseError, databaseLayer, type Database } from "./Database.ts"
import { databaseOver } from "./DatabaseBridge.ts"
import { postgresClientLayer } from "./PostgresClient.ts"

export { statementNamer } from "./PostgresClient.ts"

/** Connects to PostgreSQL at `url` through a pool of `poolSize` connections (checked by one round trip). */
export const openPostgres = async (url: string, poolSize = 20): Promise<Database> => {
  const scope = Effect.runSync(Scope.make())
  const built = await Effect.runPromiseExit(Layer.buildWithScope(postgresClientLayer(url, poolSize), scope))
  const close = () => Effect.runPromise(Scope.close(scope, Exit.void))
  if (Exit.isFailure(built)) {
    await close()
    throw databaseError("connect", Cause.squash(built.cause))
  }
  return databaseOver("postgres", built.value, close)
}

/** The database service on the PostgreSQL at `url` (a pool of `poolSize`), closed when the layer's scope closes. */
export const postgresLayer = (url: string, poolSize?: number) => databaseLayer("PostgreSQL", () => openPostgres(url, poolSize))
