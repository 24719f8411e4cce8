import { parseSearch, searchMatches } from "@dispatch/jobs"
import { Result } from "effect"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import type { JobServer } from "../src/index.ts"
import { defaultLimits } from "../src/index.ts"
import { client, entrypointBody, jobBody, queueBody, registerWorld, started, tokens, type Client } from "./Fixtures.ts"
import { useService } from "./Service.ts"

describe("queues, entrypoints and experiments in Dioptra's shapes", () => {
  let server: JobServer
  let alice: Client
  beforeAll(async () => {
    server = await started({})
    alice = client(server.url, tokens.alice)
  })
  afterAll(async () => {
    await server.close()
  })

  test("a list's search in SQL finds exactly what the pure matcher finds", async () => {
    const rows = [
      { name: "gpu-a100", description: "nightly job runs" },
      { name: "gpu-h100", description: "a big JOB" },
      { name: "cpu_small", description: "50% off, job" },
      { name: "cpu-large", description: "two words here" },
      { name: "tpu", description: "" }
    ]
    for (const row of rows) expect((await alice("POST", "/queues", { name: row.name, description: row.description })).status).toBe(200)
    const searches = ["description:*job*", "name:gpu-?100", "gpu", "cpu, job", 'description:"two words*"', "name:cpu_*", "description:*50%*", "name:*", "JOB", 'name:tpu,description:""']
    for (const search of searches) {
      const terms = parseSearch(search)
      if (Result.isFailure(terms)) throw new Error(terms.failure.message)
      const expected = rows.filter((r) => searchMatches(terms.success, r)).map((r) => r.name).sort()
      const answer = await alice("GET", `/queues?pageLength=100&search=${encodeURIComponent(search)}`)
      expect([search, answer.body.data.map((q: { name: string }) => q.name).sort()]).toEqual([search, expected])
      expect(answer.body.totalNumResults).toBe(expected.length)
    }
  })

  test("a search the language refuses, or over fields a list lacks, is 400 naming every problem", async () => {
    const unknown = await alice("GET", `/experiments?search=${encodeURIComponent("colour:red,size:9")}`)
    expect(unknown).toMatchObject({ status: 400, body: { error: "InvalidSearch" } })
    expect(unknown.body.message).toContain('"colour", "size" are not fields this list can be searched by; fields: name, description')
    const malformed = await alice("GET", `/entrypoints?search=${encodeURIComponent('name:"open')}`)
    expect(malformed).toMatchObject({ status: 400, body: { error: "InvalidSearch", message: expect.stringContaining("never closed") } })
  })

  test("sortBy and descending, in the spelling Python's requests sends", async () => {
    for (const name of ["sort-b", "sort-a", "sort-c"]) await alice("POST", "/experiments", { name })
    const names = async (query: string) => (await alice("GET", `/experiments?search=name:sort-*&${query}`)).body.data.map((e: { name: string }) => e.name)
    expect(await names("sortBy=name&descending=True")).toEqual(["sort-c", "sort-b", "sort-a"])
    expect(await names("sortBy=name&descending=False")).toEqual(["sort-a", "sort-b", "sort-c"])
    expect((await alice("GET", "/experiments?descending=yes")).status).toBe(400)
  })

  test("a queue without a backend takes jobs and says why; PUT with a backend gives it one to prove", async () => {
    const queue = (await alice("POST", "/queues", { name: "stock" })).body
    expect(queue).toMatchObject({ description: null, gate: { state: "unproven", reason: expect.stringContaining("has no backend") } })
    expect(queue).not.toHaveProperty("backend")
    const { command: _, ...stockEntrypoint } = entrypointBody("stock-ep", [queue.id])
    const entrypoint = (await alice("POST", "/entrypoints", stockEntrypoint)).body
    expect(entrypoint).not.toHaveProperty("command")
    const experiment = (await alice("POST", "/experiments", { name: "stock-ex", entrypoints: [entrypoint.id] })).body
    const job = await alice("POST", `/experiments/${experiment.id}/jobs`, jobBody(entrypoint.id, queue.id))
    expect(job).toMatchObject({ status: 200, body: { status: "queued" } })
    const given = await alice("PUT", `/queues/${queue.id}`, { name: "stock", backend: { ...queueBody("x").backend, command: ["dioptra-worker"] } })
    expect(given.body).toMatchObject({ backend: { command: ["dioptra-worker"] }, gate: { state: "unproven", reason: "the queue's Factory has not run yet" } })
    const renamed = await alice("PUT", `/queues/${queue.id}`, { name: "stock-2" })
    expect(renamed.body).toMatchObject({ name: "stock-2", backend: { command: ["dioptra-worker"] } })
    // With a backend that names no command, a commandless entrypoint's job is refused at creation.
    const plain = (await alice("POST", "/queues", queueBody("plain-q"))).body
    await alice("PUT", `/entrypoints/${entrypoint.id}`, { ...stockEntrypoint, queues: [queue.id, plain.id] })
    const refused = await alice("POST", `/experiments/${experiment.id}/jobs`, jobBody(entrypoint.id, plain.id))
    expect(refused).toMatchObject({ status: 400, body: { error: "NoCommand" } })
  })

  test("the task graph comes back as the YAML sent; a graph that is not YAML is 400 naming taskGraph", async () => {
    const queue = (await alice("POST", "/queues", queueBody("yaml-q"))).body
    const yaml = "load:\n  load_dataset:\n    path: $data_dir  # a comment kept\n"
    const made = await alice("POST", "/entrypoints", { ...entrypointBody("yaml-ep", [queue.id]), taskGraph: yaml, parameters: [{ name: "data_dir", parameterType: "string" }] })
    expect(made.body).toMatchObject({ taskGraph: yaml, parameters: [{ name: "data_dir", parameterType: "string", defaultValue: null }], queues: [{ id: queue.id, name: "yaml-q" }] })
    const [snapshot] = (await alice("GET", `/entrypoints/${made.body.id}/snapshots`)).body.data
    expect(snapshot).toMatchObject({ snapshot: made.body.snapshot, taskGraph: yaml, latestSnapshot: true })
    const bad = await alice("POST", "/entrypoints", { ...entrypointBody("yaml-bad", [queue.id]), taskGraph: "a: [unclosed", plugins: [7] })
    expect(bad.status).toBe(400)
    expect(bad.body.detail.map((d: { error: string; path?: string }) => d.path ?? d.error)).toEqual(["taskGraph", "ResourceNotFound"])
    const deep = await alice("POST", "/entrypoints", { ...entrypointBody("yaml-deep", [queue.id]), taskGraph: `s:\n  t: ${"[".repeat(200)}${"]".repeat(200)}` })
    expect(deep).toMatchObject({ status: 400, body: { detail: [{ path: "taskGraph", detail: "nests deeper than 64 levels" }] } })
  })

  test("entrypoints are searchable by task_graph and artifact_graph of their latest snapshot, as upstream", async () => {
    const queue = (await alice("POST", "/queues", queueBody("graph-search-q"))).body
    const yaml = "fetch:\n  fetch_zebra_images:\n    path: $data_dir\n"
    const made = await alice("POST", "/entrypoints", {
      ...entrypointBody("graph-search-yaml", [queue.id]),
      taskGraph: yaml,
      artifactGraph: "zebra_model:\n  contents: $fetch\n",
      parameters: [{ name: "data_dir", parameterType: "string" }]
    })
    expect(made.status).toBe(200)
    const json = (await alice("POST", "/entrypoints", entrypointBody("graph-search-json", [queue.id]))).body
    const found = async (search: string) =>
      (await alice("GET", `/entrypoints?pageLength=100&search=${encodeURIComponent(search)}`)).body.data.map((e: { name: string }) => e.name).sort()
    expect(await found("task_graph:*fetch_zebra_images*")).toEqual(["graph-search-yaml"])
    expect(await found("artifact_graph:*zebra_model*")).toEqual(["graph-search-yaml"])
    // A graph sent as a JSON object is searched in its JSON text.
    expect(await found("name:graph-search-*,task_graph:*training_method*")).toEqual(["graph-search-json"])
    // Only the latest snapshot counts.
    await alice("PUT", `/entrypoints/${made.body.id}`, { ...entrypointBody("graph-search-yaml", [queue.id]), taskGraph: "other:\n  t: {}\n", parameters: [] })
    expect(await found("task_graph:*fetch_zebra_images*")).toEqual([])
    expect(json.id).toEqual(expect.any(Number))
  })

  test("queues, entrypoints and experiments answer snapshotCreatedOn: when the snapshot answered was made", async () => {
    const queue = (await alice("POST", "/queues", queueBody("stamped-q"))).body
    expect(queue.snapshotCreatedOn).toEqual(queue.createdOn)
    const entrypoint = (await alice("POST", "/entrypoints", entrypointBody("stamped-ep", [queue.id]))).body
    const changed = (await alice("PUT", `/entrypoints/${entrypoint.id}`, { ...entrypointBody("stamped-ep", [queue.id]), description: "again" })).body
    expect(changed.snapshotCreatedOn).toEqual(changed.lastModifiedOn)
    const experiment = (await alice("POST", "/experiments", { name: "stamped-exp", entrypoints: [entrypoint.id] })).body
    expect((await alice("GET", `/experiments/${experiment.id}`)).body.snapshotCreatedOn).toEqual(experiment.lastModifiedOn)
  })

  test("queues, entrypoints and experiments name who made them in user, as upstream", async () => {
    const queue = (await alice("POST", "/queues", queueBody("made-by-q"))).body
    const entrypoint = (await alice("POST", "/entrypoints", entrypointBody("made-by-ep", [queue.id]))).body
    const experiment = (await alice("POST", "/experiments", { name: "made-by-exp", entrypoints: [entrypoint.id] })).body
    // A bearer token is named only: it is no user account.
    for (const made of [queue, entrypoint, experiment]) expect(made.user).toEqual({ id: null, username: "alice", url: null })
    expect((await alice("GET", `/queues?search=name:made-by-q`)).body.data[0].user).toEqual({ id: null, username: "alice", url: null })
  })

  test("delete_by_id answers Dioptra's {status, id}; the name is free again and the old id is gone", async () => {
    const queue = (await alice("POST", "/queues", { name: "gone" })).body
    expect(await alice("DELETE", `/queues/${queue.id}`)).toEqual({ status: 200, body: { status: "Success", id: [queue.id] } })
    expect((await alice("GET", `/queues/${queue.id}`)).status).toBe(404)
    expect((await alice("DELETE", `/queues/${queue.id}`)).status).toBe(404)
    expect((await alice("POST", "/queues", { name: "gone" })).status).toBe(200)
    const foreign = await alice("POST", "/queues", { group: 999, name: "elsewhere" })
    expect(foreign).toMatchObject({ status: 403, body: { error: "NotYourGroup" } })
  })
})

describe("entrypoint snapshots: the latest answered, the rest a page at a time, bounded and pruned", () => {
  const service = useService("pglite")
  const bytesOf = (body: unknown) => Buffer.byteLength(JSON.stringify(body))
  const parameters = (count: number, chars: number, tag: string) =>
    Array.from({ length: count }, (_, i) => ({ name: `p${i}`, type: "string", defaultValue: `${tag}${"x".repeat(chars - tag.length)}` }))

  // Every PUT kept a snapshot and every answer carried all of them: the 33rd PUT of such an entrypoint answered
  // 273 MB, the 34th a 500 from PostgreSQL.
  test("an entrypoint of 120 parameters with 65,000-character defaults (a 7.8 MB body) is 413 naming the bound, and nothing is stored", async () => {
    const { alice } = service()
    const queue = (await alice("POST", "/queues", queueBody("huge-q"))).body
    const before = (await alice("GET", "/entrypoints")).body.totalNumResults
    const huge = { ...entrypointBody("huge-ep", [queue.id]), parameters: parameters(120, 65_000, "d") }
    const answer = await alice("POST", "/entrypoints", huge)
    expect(answer).toMatchObject({ status: 413, body: { error: "SnapshotTooLarge", detail: [{ resource: "entrypoint", limit: defaultLimits.snapshotBytes }] } })
    expect(answer.body.detail[0].bytes).toBeGreaterThan(120 * 65_000)
    expect((await alice("GET", "/entrypoints")).body.totalNumResults).toBe(before)
  })

  test("repeated PUTs of a 1 MB entrypoint: each answer is the latest snapshot and a link, the last 10 no job names are kept, and those a job names stay", async () => {
    const { alice, server } = service()
    const world = await registerWorld(alice, "grow")
    const body = (n: number) => ({ ...entrypointBody("ep-grow", [world.queue]), parameters: [{ name: "data_dir", type: "string" }, ...parameters(15, 64_000, `v${n}-`)] })
    const first = (await alice("PUT", `/entrypoints/${world.entrypoint}`, body(0))).body
    const pinned = await alice("POST", `/experiments/${world.experiment}/jobs`, jobBody(world.entrypoint, world.queue, { values: { data_dir: "/d" } }))
    expect(pinned.body.entrypointSnapshot).toBe(first.snapshot)
    const sizes: Array<number> = []
    let second: number | undefined
    for (let n = 1; n <= 14; n++) {
      const put = await alice("PUT", `/entrypoints/${world.entrypoint}`, body(n))
      expect(put.status, `PUT ${n}`).toBe(200)
      second ??= put.body.snapshot
      sizes.push(bytesOf(put.body))
      expect(put.body.parameters[1].defaultValue.startsWith(`v${n}-`)).toBe(true)
    }
    // Every answer holds one snapshot: the last is no larger than the first.
    expect(Math.max(...sizes)).toBeLessThan(1_100_000)
    expect((sizes.at(-1) ?? 0) - (sizes[0] ?? 0)).toBeLessThan(1000)
    const read = (await alice("GET", `/entrypoints/${world.entrypoint}`)).body
    // The first PUT's snapshot (a job names it) and the 10 latest: the others, the registration's among them, are pruned.
    expect(read.snapshots).toEqual({ url: `${server.url}/api/v1/entrypoints/${world.entrypoint}/snapshots`, count: 11 })
    expect(bytesOf(read)).toBeLessThan(1_100_000)
    expect((await alice("GET", `/entrypoints/${world.entrypoint}/snapshots/${first.snapshot}`)).body).toMatchObject({ snapshot: first.snapshot, latestSnapshot: false })
    expect((await alice("GET", `/entrypoints/${world.entrypoint}/snapshots/${second}`))).toMatchObject({ status: 404, body: { error: "ResourceNotFound" } })
    const again = await alice("POST", `/experiments/${world.experiment}/jobs`, jobBody(world.entrypoint, world.queue, { values: { data_dir: "/d" }, entrypointSnapshot: first.snapshot }))
    expect(again.status).toBe(200)
    // The list is paged, oldest first, and no page passes the page limit in bytes.
    const seen: Array<number> = []
    for (let url: string | undefined = `/entrypoints/${world.entrypoint}/snapshots?pageLength=100`; url !== undefined; ) {
      const page: { readonly status: number; readonly body: any } = await alice("GET", url)
      expect(page.status).toBe(200)
      expect(bytesOf(page.body)).toBeLessThanOrEqual(defaultLimits.pageBytes + 4096)
      seen.push(...page.body.data.map((s: { snapshot: number }) => s.snapshot))
      url = page.body.next === undefined ? undefined : String(page.body.next).slice(`${server.url}/api/v1`.length)
    }
    expect(seen).toHaveLength(11)
    expect(seen).toEqual([...seen].sort((a, b) => a - b))
    expect(seen).toContain(first.snapshot)
    expect(seen.at(-1)).toBe(read.snapshot)
  })

  test("the snapshots a resource keeps are bounded: past the bound a PUT (or a new artifact snapshot) is 413 naming it, and nothing is stored", async () => {
    const small = await started({ limits: { resourceBytes: 20_000, snapshotsKept: 2, artifactSnapshots: 3, references: 2 } })
    try {
      const bob = client(small.url, tokens.alice)
      const world = await registerWorld(bob, "bounded")
      const body = (n: number) => ({ ...entrypointBody("ep-bounded", [world.queue]), description: `v${n}`, parameters: [{ name: "data_dir", type: "string" }, ...parameters(1, 3000, `v${n}-`)] })
      let refused: { status: number; body: any } | undefined
      for (let n = 0; n < 20 && refused === undefined; n++) {
        const put = await bob("PUT", `/entrypoints/${world.entrypoint}`, body(n))
        if (put.status !== 200) refused = put
        // Each snapshot a job names is kept past retention, so they add up.
        else expect((await bob("POST", `/experiments/${world.experiment}/jobs`, jobBody(world.entrypoint, world.queue, { values: { data_dir: "/d" } }))).status).toBe(200)
      }
      expect(refused).toMatchObject({ status: 413, body: { error: "ResourceTooLarge", detail: [{ resource: "entrypoint", id: world.entrypoint, limit: 20_000 }] } })
      expect(refused?.body.detail[0].bytes).toBeGreaterThan(20_000)
      // The refused PUT changed nothing: the entrypoint is still the last one accepted.
      const after = (await bob("GET", `/entrypoints/${world.entrypoint}`)).body
      expect(after.description).toBe(`v${after.snapshots.count - 1}`)
      // Retention alone (no job naming them) keeps two.
      const other = await registerWorld(bob, "bounded-free")
      for (let n = 0; n < 6; n++) expect((await bob("PUT", `/entrypoints/${other.entrypoint}`, { ...body(n), name: "ep-bounded-free" })).status).toBe(200)
      expect((await bob("GET", `/entrypoints/${other.entrypoint}`)).body.snapshots.count).toBe(2)
      // An artifact lists every snapshot id it has: their number is bounded.
      const artifact = (await bob("POST", "/artifacts", { artifactType: "model" })).body
      for (let n = 1; n < 3; n++) expect((await bob("POST", `/artifacts/${artifact.id}/snapshots`)).status).toBe(200)
      const fourth = await bob("POST", `/artifacts/${artifact.id}/snapshots`)
      expect(fourth).toMatchObject({ status: 413, body: { error: "TooManySnapshots", detail: [{ resource: "artifact", id: artifact.id, limit: 3 }] } })
      expect((await bob("GET", `/artifacts/${artifact.id}`)).body.snapshots).toHaveLength(3)
      // What adds up over requests, an experiment's entrypoints and a job's artifacts, is bounded too.
      const third = (await bob("POST", "/entrypoints", { ...body(0), name: "ep-bounded-third" })).body.id
      expect((await bob("POST", `/experiments/${other.experiment}/entrypoints`, { ids: [other.entrypoint] })).status).toBe(200)
      const crowded = await bob("POST", `/experiments/${other.experiment}/entrypoints`, { ids: [world.entrypoint, third] })
      expect(crowded).toMatchObject({ status: 413, body: { error: "TooManyReferences", detail: [{ resource: "experiment", field: "entrypoints", count: 3, limit: 2 }] } })
      expect((await bob("GET", `/experiments/${other.experiment}`)).body.entrypoints).toHaveLength(1)
      const made = await bob("POST", `/experiments/${other.experiment}/jobs`, jobBody(other.entrypoint, world.queue, { values: { data_dir: "/d" } }))
      expect(made.status, JSON.stringify(made.body)).toBe(200)
      const job = made.body
      for (const n of [1, 2]) expect((await bob("POST", `/experiments/${other.experiment}/jobs/${job.id}/artifacts`, { uri: `s3://b/${n}` })).status).toBe(200)
      const refusedArtifact = await bob("POST", `/experiments/${other.experiment}/jobs/${job.id}/artifacts`, { uri: "s3://b/3" })
      expect(refusedArtifact).toMatchObject({ status: 413, body: { error: "TooManyReferences", detail: [{ resource: "job", field: "artifacts", limit: 2 }] } })
      expect((await bob("GET", `/jobs/${job.id}`)).body.artifacts).toHaveLength(2)
    } finally {
      await small.close()
    }
  })
})

