// Strings and ids the database cannot hold are refused before it sees them: a 4xx naming the field, never a
// 500 carrying SQL text, and nothing stored.
import { describe, expect, test } from "vitest"
import { entrypointBody, jobBody, queueBody, registerWorld } from "./Fixtures.ts"
import { backends, useService } from "./Service.ts"

const fieldsOf = (body: { detail: ReadonlyArray<{ error: string; field?: string; path?: string }> }) =>
  body.detail.map((d) => `${d.error} ${d.field ?? d.path ?? ""}`)

describe.each(backends)("text and ids the database cannot hold, on %s", (backend) => {
  const service = useService(backend)

  test("NUL and lone surrogates anywhere in a body are one 400 naming every field, and nothing is stored", async () => {
    const { alice } = service()
    const answer = await alice("POST", "/experiments", { name: "nul\u0000name", description: "lone \uD800 half" })
    expect(answer.status).toBe(400)
    expect(fieldsOf(answer.body)).toEqual(["MalformedText name", "MalformedText description"])
    const queue = await alice("POST", "/queues", { ...queueBody("q"), backend: { ...queueBody("q").backend, image: "img\u0000" } })
    expect(fieldsOf(queue.body)).toEqual(["MalformedText backend.image"])
    const graph = await alice("POST", "/entrypoints", { ...entrypointBody("e", []), taskGraph: { s: { t: { deep: ["\uDC00"], "k\u0000": 1 } } } })
    expect(graph.status).toBe(400)
    expect(fieldsOf(graph.body)).toEqual(["MalformedText taskGraph.s.t.deep[0]", "MalformedText taskGraph.s.t.(a key)"])
    const listed = await alice("GET", "/experiments")
    expect(listed.body.data.filter((e: { name: string }) => e.name.startsWith("nul"))).toEqual([])
  })

  test("job values, swaps and descriptions, log messages and metric names are checked the same way", async () => {
    const { alice } = service()
    const world = await registerWorld(alice, "text")
    const bad = await alice("POST", `/experiments/${world.experiment}/jobs`, jobBody(world.entrypoint, world.queue, { values: { data_dir: "/d\u0000" }, swaps: { training_method: "\uD800" }, description: "\u0000" }))
    expect(bad.status).toBe(400)
    expect(fieldsOf(bad.body)).toEqual(["MalformedText values.data_dir", "MalformedText swaps.training_method", "MalformedText description"])
    const job = await alice("POST", `/experiments/${world.experiment}/jobs`, jobBody(world.entrypoint, world.queue))
    expect(job.status).toBe(200)
    const log = await alice("POST", `/jobs/${job.body.id}/log`, { data: [{ severity: "INFO", loggerName: "l", message: "half \uD83D" }] })
    expect(log.status).toBe(400)
    expect(fieldsOf(log.body)).toEqual(["MalformedText data[0].message"])
    expect((await alice("GET", `/jobs/${job.body.id}/log`)).body.data).toEqual([])
    const longName = await alice("POST", `/jobs/${job.body.id}/metrics`, { name: "m".repeat(2700), value: 1 })
    expect(longName.status).toBe(400)
    expect(fieldsOf(longName.body)).toEqual(["InvalidRequest name"])
    const pathNul = await alice("GET", `/jobs/${job.body.id}/metrics/a%00b/snapshots`)
    expect(pathNul.status).toBe(400)
    const search = await alice("GET", `/jobs?search=${encodeURIComponent("\u0000")}`)
    expect(search.status).toBe(400)
    const longEntry = await alice("POST", "/experiments", { name: "n".repeat(256) })
    expect(fieldsOf(longEntry.body)).toEqual(["InvalidRequest name"])
  })

  test("ids in a path: past the stored range 404, not spelt canonically 400 naming the parameter; outside the range in a body 400", async () => {
    const { alice } = service()
    for (const id of ["2147483648", "9007199254740991"]) {
      const answer = await alice("GET", `/experiments/${id}`)
      expect(answer.status, id).toBe(404)
      expect(answer.body.error).toBe("ResourceNotFound")
    }
    for (const id of ["0x10", "1.0", "1e0", "%201", "01", "0", "-1"]) {
      const answer = await alice("GET", `/experiments/${id}`)
      expect(answer.status, id).toBe(400)
      expect(fieldsOf(answer.body)).toEqual(["InvalidRequest id"])
    }
    const world = await registerWorld(alice, "ids")
    const job = await alice("POST", `/experiments/${world.experiment}/jobs`, jobBody(2147483648, 2 ** 53 - 1))
    expect(job.status).toBe(400)
    expect(fieldsOf(job.body)).toEqual(["InvalidRequest entrypoint", "InvalidRequest queue"])
    const experiment = await alice("POST", "/experiments", { name: "big", entrypoints: [2147483648] })
    expect(experiment.status).toBe(400)
    expect((await alice("GET", `/experiments/${world.experiment}`)).status).toBe(200)
  })
})
