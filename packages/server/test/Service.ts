import { afterAll, beforeAll } from "vitest"
import type { JobServer } from "../src/index.ts"
import { client, started, tokens, type Client } from "./Fixtures.ts"
import { testPostgres, type TestPostgres } from "./TestPostgres.ts"

/** The databases every API test runs on. */
export const backends = ["pglite", "postgres"] as const

/** One running service for a describe block, with a client per token and one with none. */
export interface Service {
  readonly server: JobServer
  readonly alice: Client
  readonly bob: Client
  readonly reader: Client
  readonly anonymous: Client
}

/** Starts a service on the backend before the block's tests and stops it (and its database) after them. */
export const useService = (backend: (typeof backends)[number]): (() => Service) => {
  let service: Service | undefined
  let postgres: TestPostgres | undefined
  beforeAll(async () => {
    postgres = backend === "postgres" ? await testPostgres() : undefined
    const server = await started(postgres === undefined ? {} : { databaseUrl: postgres.url })
    service = {
      server,
      alice: client(server.url, tokens.alice),
      bob: client(server.url, tokens.bob),
      reader: client(server.url, tokens.reader),
      anonymous: client(server.url, undefined)
    }
  })
  afterAll(async () => {
    await service?.server.close()
    await postgres?.release()
  })
  return () => {
    if (service === undefined) throw new Error("the service did not start")
    return service
  }
}
