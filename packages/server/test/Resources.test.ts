// The resources' repository decodes every row it reads: what it reads through to_jsonb for a job creation is what
// its plain reads answer, and a row its schema refuses is the read's failure, never a value of the wrong shape.
import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { describe, expect, test } from "vitest"
import { groupIdOf } from "../src/store/Groups.ts"
import { resources } from "../src/store/Resources.ts"
import { backends } from "./Service.ts"
import { useMigratedDatabase } from "./TestDatabase.ts"

const at = "2026-12-01T00:00:00.000Z"
const document = { parameters: [], artifactParameters: [], taskGraph: { steps: [] } } as never

describe.each(backends)("the resources' repository on %s", (backend) => {
  const database = useMigratedDatabase(backend, "resources")
  const run = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) => Effect.runPromise(Effect.provideService(effect, SqlClient.SqlClient, database().client))
  const runExit = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) => Effect.runPromiseExit(Effect.provideService(effect, SqlClient.SqlClient, database().client))

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

  test("the bytes an entrypoint's snapshots would take are counted from the stored documents, as a number on either database", async () => {
    const bytes = await run(
      Effect.gen(function* () {
        yield* groupIdOf("team")
        const store = yield* resources
        const entrypoint = yield* store.insertEntrypoint("team", { name: "alice" }, { name: "sized", description: "", queues: [] }, document, at)
        const stored = yield* store.snapshotBytesWith(entrypoint, 0, 10)
        return { stored, withMore: yield* store.snapshotBytesWith(entrypoint, 100, 10) }
      })
    )
    const [row] = await database().query<{ n: number }>(`select octet_length(s.document::text) as n from entrypoint_snapshots s join entrypoints e on e.id = s.entrypoint where e.name = 'sized'`)
    expect(bytes).toEqual({ stored: row?.n, withMore: (row?.n ?? 0) + 100 })
  })

  test("a row its schema refuses fails the read with the schema's error", async () => {
    await database().query(`insert into experiments (grp, name, description, created_on, last_modified_on) values ('nobody-named-it', 'x', '', $1, $1)`, [at])
    const [row] = await database().query<{ id: number }>(`select id from experiments where grp = 'nobody-named-it'`)
    // The group was never named by a caller, so it has no integer id: the row cannot be answered.
    const exit = await runExit(Effect.flatMap(resources, (store) => store.readExperiment("nobody-named-it", row?.id ?? 0)))
    expect(exit._tag === "Failure" && Schema.isSchemaError(exit.cause.reasons[0]?._tag === "Fail" ? exit.cause.reasons[0].error : undefined)).toBe(true)
  })
})
