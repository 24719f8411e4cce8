// The resources' repository decodes every row it reads: what it reads through to_jsonb for a job creation is what
// its plain reads answer, and a row its schema refuses is the read's failure, never a value of the wrong shape.
import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { describe, expect, test } from "vitest"
import { clientOver } from "../src/store/DatabaseBridge.ts"
import { groupIdOf } from "../src/store/Groups.ts"
import { resources } from "../src/store/Resources.ts"
import { useMigratedDatabase } from "./TestDatabase.ts"

const at = "2026-12-01T00:00:00.000Z"
const document = { parameters: [], artifactParameters: [], taskGraph: { steps: [] } } as never

describe("the resources' repository", () => {
  const database = useMigratedDatabase("pglite", "resources")
  const run = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) => Effect.runPromise(Effect.provideService(effect, SqlClient.SqlClient, clientOver(database())))
  const runExit = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) => Effect.runPromiseExit(Effect.provideService(effect, SqlClient.SqlClient, clientOver(database())))

  test("a job creation's one-round-trip read answers each resource as its own read does", async () => {
    const made = await run(
      Effect.gen(function* () {
        yield* groupIdOf("team")
        const store = yield* resources
        const queue = yield* store.insertQueue("team", { name: "alice" }, { name: "q", description: "a queue" }, at)
        const entrypoint = yield* store.insertEntrypoint("team", { name: "alice" }, { name: "ep", description: "", queues: [queue] }, document, at)
        const experiment = yield* store.insertExperiment("team", { name: "alice" }, { name: "ex", description: "" }, at)
        yield* store.registerEntrypoints(experiment, [entrypoint])
        const artifact = yield* store.insertArtifact("team", "model", at)
        return { queue, entrypoint, experiment, artifact }
      })
    )
    const [catalog, experiment, entrypoint, queue, artifact] = await run(
      Effect.flatMap(resources, (store) =>
        Effect.all([
          store.loadCatalogRows("team", { ...made, artifacts: [made.artifact] }),
          store.readExperiment("team", made.experiment),
          store.readEntrypoint("team", made.entrypoint),
          store.readQueue("team", made.queue),
          store.readArtifact("team", made.artifact)
        ])
      )
    )
    expect(experiment?.entrypoints).toEqual([made.entrypoint])
    expect(catalog).toEqual({ experiment, entrypoint, queue, artifacts: [artifact] })
  })

  test("a row its schema refuses fails the read with the schema's error", async () => {
    await database().query(`insert into experiments (grp, name, description, created_on, last_modified_on) values ('nobody-named-it', 'x', '', $1, $1)`, [at])
    const [row] = await database().query<{ id: number }>(`select id from experiments where grp = 'nobody-named-it'`)
    // The group was never named by a caller, so it has no integer id: the row cannot be answered.
    const exit = await runExit(Effect.flatMap(resources, (store) => store.readExperiment("nobody-named-it", row?.id ?? 0)))
    expect(exit._tag === "Failure" && Schema.isSchemaError(exit.cause.reasons[0]?._tag === "Fail" ? exit.cause.reasons[0].error : undefined)).toBe(true)
  })
})
