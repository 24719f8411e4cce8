// The typed client against a running service: every call is checked by the same declaration the server serves.
import { Effect, Result } from "effect"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { client, entrypointBody, jobBody, queueBody, registerWorld, started, tokens } from "../../server/test/Fixtures.ts"
import type { JobServer } from "@dispatch/server"
import { makeClient, runWithFetch, withIdempotencyKey } from "../src/index.ts"

describe("@dispatch/client", () => {
  let server: JobServer | undefined
  beforeAll(async () => {
    server = await started({})
  })
  afterAll(async () => {
    await server?.close()
  })

  test("registers a world, creates a job and reads it back, all typed; a refusal is the service's error body", async () => {
    const url = server?.url ?? ""
    const program = Effect.gen(function* () {
      const client = yield* makeClient({ baseUrl: url, token: tokens.alice })
      const queue = yield* client.queues.create({ payload: queueBody("client-q") as never })
      const entrypoint = yield* client.entrypoints.create({ payload: entrypointBody("client-ep", [queue.id]) as never })
      const experiment = yield* client.experiments.create({ payload: { name: "client-ex", entrypoints: [entrypoint.id] } })
      const job = yield* client.jobs.create({ params: { id: experiment.id }, payload: jobBody(entrypoint.id, queue.id) as never })
      const read = yield* client.jobs.read({ params: { id: job.id } })
      const page = yield* client.jobs.list({ query: { pageLength: 5 } })
      const missing = yield* Effect.result(client.jobs.read({ params: { id: 999_999 } }))
      return { job, read, page, missing }
    })
    const { job, read, page, missing } = await runWithFetch(program)
    expect(read).toEqual(job)
    expect(job.status).toBe("queued")
    expect(page.data.map((j) => j.id)).toContain(job.id)
    expect(Result.isFailure(missing) && missing.failure).toMatchObject({ error: "ResourceNotFound", detail: [{ resource: "job", id: "999999" }] })
  })

  test("without a token every call is refused with 401's body", async () => {
    const url = server?.url ?? ""
    const refused = await runWithFetch(Effect.result(Effect.flatMap(makeClient({ baseUrl: url }), (client) => client.experiments.list({ query: {} }))))
    expect(Result.isFailure(refused) && refused.failure).toMatchObject({ error: "Unauthenticated" })
  })

  test("a creation sent again with the same Idempotency-Key answers the first result and creates one job", async () => {
    const url = server?.url ?? ""
    const world = await registerWorld(client(url, tokens.alice), "client-key")
    const program = Effect.gen(function* () {
      const client = yield* makeClient({ baseUrl: url, token: tokens.alice })
      const create = client.jobs.create({ params: { id: world.experiment }, payload: jobBody(world.entrypoint, world.queue) as never })
      const first = yield* create.pipe(withIdempotencyKey("client-retry-1"))
      const again = yield* create.pipe(withIdempotencyKey("client-retry-1"))
      const unkeyed = yield* create
      const listed = yield* client.jobs.listInExperiment({ params: { id: world.experiment }, query: {} })
      return { first, again, unkeyed, listed }
    })
    const { first, again, unkeyed, listed } = await runWithFetch(program)
    expect(again).toEqual(first)
    expect(unkeyed.id).not.toBe(first.id)
    expect(listed.data.map((j) => j.id).sort()).toEqual([first.id, unkeyed.id].sort())
  })
})
