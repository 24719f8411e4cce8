import { JobRequest, LogRecord } from "@dispatch/jobs"
import { Result, Schema } from "effect"
import { describe, expect, test } from "vitest"
import {
  ArtifactResponse,
  DeletedResponse,
  JobArtifactParametersResponse,
  JobParametersResponse,
  EntrypointResponse,
  ExperimentResponse,
  JobResponse,
  LogsResponse,
  MetricResponse,
  MetricsResponse,
  MlflowRunResponse,
  pageOf,
  StatusResponse
} from "../src/index.ts"
import { ResourceRef } from "../src/wire/RefTypes.ts"
import { routes } from "../src/Serve.ts"
import { entrypointBody, jobBody, registerWorld, type Answer, type Client } from "./Fixtures.ts"
import { backends, useService } from "./Service.ts"

/** Asserts a 200 whose body decodes with the endpoint's response schema, and returns the body. */
const shaped = <S extends Schema.ConstraintDecoder<unknown>>(schema: S, answer: Answer): S["Type"] => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  const decoded = Schema.decodeUnknownResult(schema)(answer.body)
  if (Result.isFailure(decoded)) throw new Error(`response does not match its schema: ${decoded.failure.message}`)
  return decoded.success
}

/** Asserts a refusal: its status, the error that decided it, and every problem kind in order. */
const refusedWith = (answer: Answer, status: number, errors: ReadonlyArray<string>) => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status)
  expect(answer.body.error).toBe(errors[0])
  expect(answer.body.detail.map((d: { error: string }) => d.error)).toEqual(errors)
  expect(typeof answer.body.message).toBe("string")
}

const JobPage = pageOf(JobResponse)

describe.each(backends)("job endpoints on %s", (backend) => {
  const service = useService(backend)

  const newJob = async (call: Client, tag: string, extra: Record<string, unknown> = {}) => {
    const world = await registerWorld(call, tag)
    const job = shaped(JobResponse, await call("POST", `/experiments/${world.experiment}/jobs`, jobBody(world.entrypoint, world.queue, extra)))
    return { world, job }
  }

  test("a created job keeps what it was created with, coerced, with defaults filled and its status history begun", async () => {
    const { alice, server } = service()
    const { world, job } = await newJob(alice, "create")
    const api = `${server.url}/api/v1`
    const group = { id: job.group.id, name: "vision", url: `${api}/groups/${job.group.id}` }
    expect(job).toMatchObject({
      experiment: { id: world.experiment, name: "ex-create", group, url: `${api}/experiments/${world.experiment}` },
      entrypoint: { id: world.entrypoint, name: "ep-create", group, url: `${api}/entrypoints/${world.entrypoint}`, snapshotId: job.entrypointSnapshot },
      queue: { id: world.queue, name: "q-create", group, url: `${api}/queues/${world.queue}` },
      values: { data_dir: "/data", epochs: 5, lr: 0.01, shuffle: true },
      swaps: { training_method: "method_a" },
      timeout: "2h",
      timeoutSeconds: 7200,
      status: "queued",
      group,
      user: { id: null, username: "alice", url: null },
      artifacts: [],
      tags: [],
      description: "first run",
      // Upstream's bookkeeping: a job is never edited, so it is its own one snapshot, made when it was created.
      snapshot: job.id,
      snapshotCreatedOn: job.createdOn,
      latestSnapshot: true,
      hasDraft: false
    })
    expect(shaped(JobResponse, await alice("GET", `/jobs/${job.id}`))).toEqual(job)
    const status = shaped(StatusResponse, await alice("GET", `/jobs/${job.id}/status`))
    expect(status).toEqual({ id: job.id, status: "queued", history: [{ status: "queued", changedOn: job.createdOn }] })

    // Made without a description, it answers null, as upstream.
    const bare = shaped(JobResponse, await alice("POST", `/experiments/${world.experiment}/jobs`, { ...jobBody(world.entrypoint, world.queue), description: undefined }))
    expect(bare.description).toBeNull()
  })

  test("the timeout is echoed as given, defaults to 24h, and the latest snapshot is used when none is named", async () => {
    const { alice } = service()
    const world = await registerWorld(alice, "defaults")
    const { timeout: _, ...body } = jobBody(world.entrypoint, world.queue)
    const job = shaped(JobResponse, await alice("POST", `/experiments/${world.experiment}/jobs`, body))
    const entrypoint = shaped(EntrypointResponse, await alice("GET", `/entrypoints/${world.entrypoint}`))
    expect([job.timeout, job.timeoutSeconds]).toEqual(["24h", 86400])
    for (const timeout of ["24h", "1d", "1440m", "86400", "86400s", "24H"]) {
      const given = shaped(JobResponse, await alice("POST", `/experiments/${world.experiment}/jobs`, { ...body, timeout }))
      expect([given.timeout, given.timeoutSeconds]).toEqual([timeout, 86400])
      expect(shaped(JobResponse, await alice("GET", `/jobs/${given.id}`)).timeout).toBe(timeout)
    }
    expect(job.entrypointSnapshot).toBe(entrypoint.snapshot)
  })

  test("a refused creation names every problem, answers the first one's status, and stores nothing", async () => {
    const { alice } = service()
    const world = await registerWorld(alice, "refusals")
    const before = shaped(JobPage, await alice("GET", `/experiments/${world.experiment}/jobs`)).totalNumResults
    const post = (body: unknown, experiment = world.experiment) => alice("POST", `/experiments/${experiment}/jobs`, body)
    const base = jobBody(world.entrypoint, world.queue)
    refusedWith(await post(base, 999_999), 404, ["ExperimentNotFound"])
    refusedWith(await post({ ...base, entrypoint: 999_999 }), 400, ["EntrypointNotFound"])
    refusedWith(await post({ ...base, queue: 999_999 }), 400, ["QueueNotFound"])
    refusedWith(await post({ ...base, entrypointSnapshot: 999_999 }), 404, ["SnapshotNotFound"])
    refusedWith(await post({ ...base, values: { data_dir: "/d", epochs: "many", bogus: "1" } }), 400, ["UnknownValue", "UncoercibleValue"])
    refusedWith(await post({ ...base, values: {} }), 400, ["MissingValue"])
    refusedWith(await post({ ...base, timeout: "1.5h" }), 400, ["InvalidTimeout"])
    refusedWith(await post({ ...base, swaps: [] }), 400, ["MissingSwap"])
    refusedWith(
      await post({ ...base, swaps: [{ swap_name: "training_method", task_alias: "method_a" }, { swap_name: "training_method", task_alias: "method_b" }, { swap_name: "nope", task_alias: "x" }] }),
      400,
      ["DuplicateSwap", "UnknownSwap"]
    )
    refusedWith(await post({ ...base, swaps: { training_method: "method_z" } }), 400, ["UnknownTaskAlias"])
    refusedWith(await post({ ...base, artifactValues: { weights: { id: 1, snapshotId: 1 } } }), 400, ["UnknownArtifactValue"])
    refusedWith(await post({ entrypoint: "one", queue: -1, values: { a: 1 } }), 400, ["InvalidRequest", "InvalidRequest", "InvalidRequest"])
    refusedWith(await alice("POST", `/experiments/${world.experiment}/jobs`, "{not json"), 400, ["MalformedJson"])
    refusedWith(await alice("POST", `/experiments/${world.experiment}/jobs`), 400, ["InvalidRequest"])
    refusedWith(await post(base, 0), 400, ["InvalidRequest"])
    const other = await registerWorld(alice, "refusals-other")
    refusedWith(await post({ ...base, entrypoint: other.entrypoint, queue: other.queue }), 400, ["EntrypointNotInExperiment"])
    refusedWith(await post({ ...base, queue: other.queue }), 400, ["QueueNotAllowed"])
    expect(shaped(JobPage, await alice("GET", `/experiments/${world.experiment}/jobs`)).totalNumResults).toBe(before)
  })

  test("artifact values must name a snapshot of an artifact of the parameter's type", async () => {
    const { alice } = service()
    const world = await registerWorld(alice, "artifacts")
    const withArtifact = { ...entrypointBody("ep-artifacts-2", [world.queue]), artifactParameters: [{ name: "weights", artifactType: "model" }] }
    const entrypoint = shaped(EntrypointResponse, await alice("POST", "/entrypoints", withArtifact))
    await alice("POST", `/experiments/${world.experiment}/entrypoints`, { ids: [entrypoint.id] })
    const model = (await alice("POST", "/artifacts", { artifactType: "model" })).body
    const dataset = (await alice("POST", "/artifacts", { artifactType: "dataset" })).body
    const second = (await alice("POST", `/artifacts/${model.id}/snapshots`)).body
    expect(second.snapshots).toHaveLength(2)
    const post = (artifactValues: unknown) =>
      alice("POST", `/experiments/${world.experiment}/jobs`, { ...jobBody(entrypoint.id, world.queue), artifactValues })
    const job = shaped(JobResponse, await post({ weights: { id: model.id, snapshotId: second.snapshots[1] } }))
    expect(job.artifactValues).toEqual({ weights: { id: model.id, snapshotId: second.snapshots[1] } })
    refusedWith(await post({ weights: { id: dataset.id, snapshotId: dataset.snapshots[0] } }), 400, ["ArtifactTypeMismatch"])
    refusedWith(await post({ weights: { id: model.id, snapshotId: 999_999 } }), 404, ["ArtifactNotFound"])
    refusedWith(await post({}), 400, ["MissingArtifactValue"])
  })

  test("editing an entrypoint adds a snapshot; jobs made earlier keep theirs, and a job may name an old one", async () => {
    const { alice } = service()
    const { world, job } = await newJob(alice, "frozen")
    const edited = {
      ...entrypointBody("ep-frozen", [world.queue]),
      parameters: [{ name: "steps", type: "integer", defaultValue: "9" }],
      taskGraph: { only: { run: { steps: "$steps" } } }
    }
    const entrypoint = shaped(EntrypointResponse, await alice("PUT", `/entrypoints/${world.entrypoint}`, edited))
    expect(entrypoint.snapshots).toEqual({ url: expect.stringMatching(new RegExp(`/api/v1/entrypoints/${world.entrypoint}/snapshots$`)), count: 2 })
    const [first, latest] = shaped(pageOf(EntrypointResponse), await alice("GET", `/entrypoints/${world.entrypoint}/snapshots`)).data
    expect([first?.latestSnapshot, latest?.latestSnapshot, latest?.snapshot]).toEqual([false, true, entrypoint.snapshot])
    expect(first?.parameters.map((p) => p.name)).toEqual(["data_dir", "epochs", "lr", "shuffle"])
    expect(shaped(JobResponse, await alice("GET", `/jobs/${job.id}`))).toEqual(job)
    const later = shaped(JobResponse, await alice("POST", `/experiments/${world.experiment}/jobs`, { entrypoint: world.entrypoint, queue: world.queue }))
    expect(later).toMatchObject({ entrypointSnapshot: latest?.snapshot, values: { steps: 9 }, swaps: {} })
    const pinned = shaped(JobResponse, await alice("POST", `/experiments/${world.experiment}/jobs`, jobBody(world.entrypoint, world.queue, { entrypointSnapshot: first?.snapshot })))
    expect(pinned.values).toEqual(job.values)
  })

  // Dioptra's state machine, written out from its documentation rather than taken from the model.
  const allowed: Record<string, ReadonlyArray<string>> = {
    queued: ["started", "deferred", "reset"],
    started: ["finished", "failed", "reset"],
    deferred: ["started", "reset"],
    finished: ["reset"],
    failed: ["reset"]
  }
  const pathTo: Record<string, ReadonlyArray<string>> = {
    queued: [],
    started: ["started"],
    deferred: ["deferred"],
    finished: ["started", "finished"],
    failed: ["started", "failed"]
  }
  const changes = ["queued", "started", "deferred", "finished", "failed", "reset"]

  test("status changes follow Dioptra's transitions, every other change is a 400, and history keeps each with its time", async () => {
    const { alice } = service()
    const world = await registerWorld(alice, "status")
    for (const from of Object.keys(allowed)) {
      for (const change of changes) {
        const job = shaped(JobResponse, await alice("POST", `/experiments/${world.experiment}/jobs`, jobBody(world.entrypoint, world.queue)))
        const put = (status: string) => alice("PUT", `/experiments/${world.experiment}/jobs/${job.id}/status`, { status })
        for (const step of pathTo[from] ?? []) shaped(StatusResponse, await put(step))
        const answer = await put(change)
        if (allowed[from]?.includes(change)) {
          const status = shaped(StatusResponse, answer)
          const now = change === "reset" ? "queued" : change
          expect(status.status).toBe(now)
          expect(status.history.map((h) => h.status)).toEqual(["queued", ...(pathTo[from] ?? []), now])
          const times = status.history.map((h) => h.changedOn)
          expect([...times].sort()).toEqual(times)
          expect(new Set(times).size).toBe(times.length)
        } else {
          refusedWith(answer, 400, ["InvalidTransition"])
          expect(shaped(StatusResponse, await alice("GET", `/jobs/${job.id}/status`)).status).toBe(from)
        }
      }
    }
    const job = shaped(JobResponse, await alice("POST", `/experiments/${world.experiment}/jobs`, jobBody(world.entrypoint, world.queue)))
    const other = await registerWorld(alice, "status-other")
    refusedWith(await alice("PUT", `/experiments/${other.experiment}/jobs/${job.id}/status`, { status: "started" }), 404, ["ResourceNotFound"])
    refusedWith(await alice("PUT", `/experiments/${world.experiment}/jobs/${job.id}/status`, { status: "running" }), 400, ["InvalidRequest"])
  })

  test("a deleted job is gone from every endpoint and every list", async () => {
    const { alice } = service()
    const { world, job } = await newJob(alice, "delete")
    expect(shaped(DeletedResponse, await alice("DELETE", `/jobs/${job.id}`))).toEqual({ status: "Success", id: [job.id] })
    for (const path of [`/jobs/${job.id}`, `/jobs/${job.id}/status`, `/jobs/${job.id}/log`, `/jobs/${job.id}/metrics`, `/jobs/${job.id}/mlflowRun`]) {
      refusedWith(await alice("GET", path), 404, ["ResourceNotFound"])
    }
    refusedWith(await alice("DELETE", `/jobs/${job.id}`), 404, ["ResourceNotFound"])
    refusedWith(await alice("POST", `/jobs/${job.id}/log`, { data: [{ severity: "INFO", loggerName: "x", message: "m" }] }), 404, ["ResourceNotFound"])
    // A metric post is not answered from a read of the job, but its job must still be there: 404, a bad value's too.
    refusedWith(await alice("POST", `/jobs/${job.id}/metrics`, { name: "loss", value: 1, step: 0 }), 404, ["ResourceNotFound"])
    refusedWith(await alice("POST", `/jobs/${job.id}/metrics`, { name: "1a", value: 1, step: -1 }), 404, ["ResourceNotFound"])
    expect(shaped(JobPage, await alice("GET", `/experiments/${world.experiment}/jobs`)).data.map((j) => j.id)).not.toContain(job.id)
  })

  test("logs are posted as {data: [...]}, take Dioptra's severities only, are stamped createdOn by the server, and page in the order received", async () => {
    const { alice } = service()
    const { job } = await newJob(alice, "logs")
    const severities = ["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]
    const posted = shaped(
      LogsResponse,
      await alice("POST", `/jobs/${job.id}/log`, { data: severities.map((severity, i) => ({ severity, loggerName: "runner", message: `m${i}`, createdOn: "1999-01-01" })) })
    )
    expect(posted.map((r) => r.severity)).toEqual(severities)
    expect(posted.every((r) => r.createdOn > job.createdOn)).toBe(true)
    refusedWith(await alice("POST", `/jobs/${job.id}/log`, { logs: [{ severity: "INFO", loggerName: "x", message: "m" }] }), 400, ["InvalidRequest"])
    refusedWith(await alice("POST", `/jobs/${job.id}/log`, { data: [{ severity: "info", loggerName: "x", message: "m" }] }), 400, ["InvalidRequest"])
    refusedWith(await alice("POST", `/jobs/${job.id}/log`, { data: [] }), 400, ["InvalidRequest"])
    const first = shaped(pageOf(LogRecord), await alice("GET", `/jobs/${job.id}/log?pageLength=3`))
    expect(first.data.map((r) => r.message)).toEqual(["m0", "m1", "m2"])
    expect(first.isComplete).toBe(false)
    const rest = shaped(pageOf(LogRecord), await fetch(first.next ?? "", { headers: { authorization: "Bearer alice-token-0123456789" } }).then(async (r) => ({ status: r.status, body: await r.json() })))
    expect(rest.data.map((r) => r.message)).toEqual(["m3", "m4"])
    expect(rest.isComplete).toBe(true)
  })

  test("a log is filtered by severity (one or several, as Python's requests repeats a list) and sorted by any of upstream's columns", async () => {
    const { alice } = service()
    const { job } = await newJob(alice, "log-filter")
    const records = [
      ["ERROR", "b", "e1"],
      ["INFO", "a", "i1"],
      ["WARNING", "c", "w1"],
      ["ERROR", "a", "e2"],
      ["DEBUG", "b", "d1"]
    ].map(([severity, loggerName, message]) => ({ severity, loggerName, message }))
    shaped(LogsResponse, await alice("POST", `/jobs/${job.id}/log`, { data: records }))
    const read = async (query: string) => shaped(pageOf(LogRecord), await alice("GET", `/jobs/${job.id}/log?${query}`))
    expect((await read("severity=ERROR")).data.map((r) => r.message)).toEqual(["e1", "e2"])
    const two = await read("severity=ERROR&severity=INFO&pageLength=2")
    expect([two.data.map((r) => r.message), two.totalNumResults]).toEqual([["e1", "i1"], 3])
    expect(new URL(two.next ?? "").searchParams.getAll("severity")).toEqual(["ERROR", "INFO"])
    expect((await read("sortBy=logger_name")).data.map((r) => r.message)).toEqual(["i1", "e2", "e1", "d1", "w1"])
    expect((await read("sortBy=loggerName&descending=True")).data.map((r) => r.message)).toEqual(["w1", "e1", "d1", "i1", "e2"])
    expect((await read("sortBy=severity&descending=false")).data.map((r) => r.message)).toEqual(["d1", "e1", "e2", "i1", "w1"])
    expect((await read("sortBy=created_on&descending=true")).data).toHaveLength(5)
    refusedWith(await alice("GET", `/jobs/${job.id}/log?severity=FATAL`), 400, ["InvalidRequest"])
    refusedWith(await alice("GET", `/jobs/${job.id}/log?sortBy=message`), 400, ["InvalidRequest"])
  })

  test("metrics: Dioptra's name rule, NaN and infinities as \"nan\", \"inf\", \"-inf\", the client's timestamp kept, every post kept", async () => {
    const { alice } = service()
    const { job } = await newJob(alice, "metrics")
    const post = (body: unknown) => alice("POST", `/jobs/${job.id}/metrics`, body)
    for (const name of ["a", "Z", "_x1", "loss", "val_ACC_2"]) shaped(MetricResponse, await post({ name, value: 1, step: 0 }))
    for (const name of ["1a", "_", "a-b", "", "lo ss"]) refusedWith(await post({ name, value: 1, step: 0 }), 400, ["InvalidMetricName"])
    refusedWith(await post({ name: "1a", value: 1, step: -1, timestamp: "later" }), 400, ["InvalidMetricName", "InvalidMetricStep", "InvalidMetricTimestamp"])
    refusedWith(await post({ name: "loss", value: "huge", step: 0 }), 400, ["InvalidRequest"])
    expect(shaped(MetricResponse, await post({ name: "loss", value: "nan", step: 1 }))).toMatchObject({ value: "nan" })
    expect(shaped(MetricResponse, await post({ name: "loss", value: "Infinity", step: 2 }))).toMatchObject({ value: "inf" })
    expect(shaped(MetricResponse, await post({ name: "loss", value: "-inf", step: 3 }))).toMatchObject({ value: "-inf" })
    const measured = "2026-01-02T03:04:05.678901+00:00"
    expect(shaped(MetricResponse, await post({ name: "loss", value: 0.5, step: 2, timestamp: measured }))).toMatchObject({ value: 0.5, timestamp: "2026-01-02T03:04:05.678Z" })
    const snapshots = shaped(pageOf(MetricResponse), await alice("GET", `/jobs/${job.id}/metrics/loss/snapshots`))
    expect(snapshots.data.map((m) => [m.step, m.value])).toEqual([
      [0, 1],
      [1, "nan"],
      [2, "inf"],
      [2, 0.5],
      [3, "-inf"]
    ])
    expect(snapshots.data[3]?.timestamp).toBe("2026-01-02T03:04:05.678Z")
    expect(snapshots.data[2]?.timestamp).not.toBe("2026-01-02T03:04:05.678Z")
    const latest = shaped(MetricsResponse, await alice("GET", `/jobs/${job.id}/metrics`))
    expect(latest.find((m) => m.name === "loss")).toMatchObject({ step: 3, value: "-inf" })
    expect(latest.map((m) => m.name).sort()).toEqual(["Z", "_x1", "a", "loss", "val_ACC_2"])
    shaped(MetricResponse, await post({ name: "loss", value: 0.25, step: 3 }))
    expect(shaped(MetricsResponse, await alice("GET", `/jobs/${job.id}/metrics`)).find((m) => m.name === "loss")).toMatchObject({ step: 3, value: 0.25 })
    expect(shaped(pageOf(MetricResponse), await alice("GET", `/jobs/${job.id}/metrics/loss/snapshots`)).totalNumResults).toBe(6)
    // A metric never posted is an empty page, as upstream answers it.
    const never = shaped(pageOf(MetricResponse), await alice("GET", `/jobs/${job.id}/metrics/accuracy/snapshots`))
    expect(never.totalNumResults).toBe(0)
    expect(never.data).toEqual([])
    expect(never.isComplete).toBe(true)
  })

  test("the MLflow run id is a UUID, set once per job, and unique across jobs", async () => {
    const { alice } = service()
    const { world, job } = await newJob(alice, "mlflow")
    const run = "3F2504E0-4F89-11D3-9A0C-0305E82C3301"
    expect(shaped(MlflowRunResponse, await alice("GET", `/jobs/${job.id}/mlflowRun`))).toEqual({ mlflowRunId: null })
    refusedWith(await alice("POST", `/jobs/${job.id}/mlflowRun`, { mlflowRunId: "not-a-uuid" }), 400, ["InvalidMlflowRunId"])
    expect(shaped(MlflowRunResponse, await alice("POST", `/jobs/${job.id}/mlflowRun`, { mlflowRunId: run }))).toEqual({ mlflowRunId: run.toLowerCase() })
    refusedWith(await alice("POST", `/jobs/${job.id}/mlflowRun`, { mlflowRunId: "00000000-0000-0000-0000-000000000000" }), 400, ["MlflowRunIdAlreadySet"])
    const second = shaped(JobResponse, await alice("POST", `/experiments/${world.experiment}/jobs`, jobBody(world.entrypoint, world.queue)))
    refusedWith(await alice("POST", `/jobs/${second.id}/mlflowRun`, { mlflowRunId: run }), 409, ["AlreadyExists"])
    expect(shaped(JobResponse, await alice("GET", `/jobs/${job.id}`)).mlflowRunId).toBe(run.toLowerCase())
  })

  test("an MLflow run id in MLflow's 32-hex form is the same run id as its dashed form, kept and echoed dashed", async () => {
    const { alice } = service()
    const { world, job } = await newJob(alice, "mlflow-hex")
    const hex = "9d2504e04f8911d39a0c0305e82c3301"
    const dashed = "9d2504e0-4f89-11d3-9a0c-0305e82c3301"
    expect(shaped(MlflowRunResponse, await alice("POST", `/jobs/${job.id}/mlflowRun`, { mlflowRunId: hex }))).toEqual({ mlflowRunId: dashed })
    expect(shaped(MlflowRunResponse, await alice("GET", `/experiments/${world.experiment}/jobs/${job.id}/mlflowRun`))).toEqual({ mlflowRunId: dashed })
    const second = shaped(JobResponse, await alice("POST", `/experiments/${world.experiment}/jobs`, jobBody(world.entrypoint, world.queue)))
    refusedWith(await alice("POST", `/experiments/${world.experiment}/jobs/${second.id}/mlflowRun`, { mlflowRunId: dashed.toUpperCase() }), 409, ["AlreadyExists"])
    refusedWith(await alice("POST", `/experiments/${world.experiment}/jobs/${second.id}/mlflowRun`, { mlflowRunId: `${hex}0` }), 400, ["InvalidMlflowRunId"])
    const other = shaped(ExperimentResponse, await alice("POST", "/experiments", { name: "mlflow-hex-other", entrypoints: [world.entrypoint] }))
    refusedWith(await alice("POST", `/experiments/${other.id}/jobs/${second.id}/mlflowRun`, { mlflowRunId: "0b7e3f1c2a4d4e5f8a9b0c1d2e3f4a5b" }), 404, ["ResourceNotFound"])
  })

  test("a job's parameters and artifact parameters are read by name, typed as coerced", async () => {
    const { alice } = service()
    const world = await registerWorld(alice, "params")
    const artifact = shaped(ArtifactResponse, await alice("POST", "/artifacts", { artifactType: "model" }))
    const entrypoint = shaped(
      EntrypointResponse,
      await alice("POST", "/entrypoints", { ...entrypointBody("ep-params-art", [world.queue]), artifactParameters: [{ name: "weights", artifactType: "model" }] })
    )
    // Upstream answers the experiment's entrypoints, every one, as references.
    const registered = shaped(Schema.Array(ResourceRef), await alice("POST", `/experiments/${world.experiment}/entrypoints`, { ids: [entrypoint.id] }))
    expect(registered.map((ref) => ref.id)).toEqual([world.entrypoint, entrypoint.id])
    expect(registered[1]).toMatchObject({ name: "ep-params-art", group: { name: "vision" }, url: expect.stringContaining(`/entrypoints/${entrypoint.id}`) })
    const job = shaped(
      JobResponse,
      await alice("POST", `/experiments/${world.experiment}/jobs`, jobBody(entrypoint.id, world.queue, { artifactValues: { weights: { id: artifact.id, snapshotId: artifact.snapshots[0] } } }))
    )
    expect(shaped(JobParametersResponse, await alice("GET", `/jobs/${job.id}/parameters`))).toEqual({ data_dir: "/data", epochs: 5, lr: 0.01, shuffle: true })
    expect(shaped(JobArtifactParametersResponse, await alice("GET", `/jobs/${job.id}/artifactParameters`))).toEqual({
      weights: { artifact_id: artifact.id, artifact_snapshot_id: artifact.snapshots[0], artifact_type: "model", artifact_uri: null }
    })
    refusedWith(await alice("GET", `/jobs/999999/parameters`), 404, ["ResourceNotFound"])
    refusedWith(await alice("GET", `/jobs/999999/artifactParameters`), 404, ["ResourceNotFound"])
  })

  test("a job is read, its status read and it is deleted through its experiment, and only through its own", async () => {
    const { alice } = service()
    const { world, job } = await newJob(alice, "in-experiment")
    const under = `/experiments/${world.experiment}/jobs/${job.id}`
    expect(shaped(JobResponse, await alice("GET", under))).toEqual(shaped(JobResponse, await alice("GET", `/jobs/${job.id}`)))
    expect(shaped(StatusResponse, await alice("GET", `${under}/status`))).toMatchObject({ id: job.id, status: "queued" })
    const other = shaped(ExperimentResponse, await alice("POST", "/experiments", { name: "in-experiment-other", entrypoints: [world.entrypoint] }))
    for (const path of [`/experiments/${other.id}/jobs/${job.id}`, `/experiments/${other.id}/jobs/${job.id}/status`, `/experiments/${other.id}/jobs/${job.id}/mlflowRun`]) {
      refusedWith(await alice("GET", path), 404, ["ResourceNotFound"])
    }
    refusedWith(await alice("DELETE", `/experiments/${other.id}/jobs/${job.id}`), 404, ["ResourceNotFound"])
    expect(shaped(DeletedResponse, await alice("DELETE", under))).toEqual({ status: "Success", id: [job.id] })
    refusedWith(await alice("GET", under), 404, ["ResourceNotFound"])
    refusedWith(await alice("DELETE", under), 404, ["ResourceNotFound"])
  })

  test("an artifact a job produced is registered under the job with its URI, and the job lists it", async () => {
    const { alice, bob } = service()
    const { world, job } = await newJob(alice, "produced")
    const under = `/experiments/${world.experiment}/jobs/${job.id}/artifacts`
    const made = shaped(ArtifactResponse, await alice("POST", under, { uri: "s3://bucket/model.pt", description: "weights" }))
    expect(made).toMatchObject({ job: job.id, uri: "s3://bucket/model.pt", description: "weights", artifactType: "artifact", snapshots: [expect.any(Number)] })
    const typed = shaped(ArtifactResponse, await alice("POST", under, { uri: "s3://bucket/data", artifactType: "dataset" }))
    expect(typed.artifactType).toBe("dataset")
    expect(shaped(ArtifactResponse, await alice("GET", `/artifacts/${made.id}`))).toEqual(made)
    expect(shaped(JobResponse, await alice("GET", `/jobs/${job.id}`)).artifacts.map((a) => a.id)).toEqual([made.id, typed.id])
    refusedWith(await alice("POST", under, { description: "no uri" }), 400, ["InvalidRequest"])
    refusedWith(await bob("POST", under, { uri: "s3://x" }), 404, ["ResourceNotFound"])
  })

  test("MLflow run ids are unique within a group only: another group's run id is neither refused nor revealed", async () => {
    const { alice, bob } = service()
    const run = "0b7e3f1c-2a4d-4e5f-8a9b-0c1d2e3f4a5b"
    const { job } = await newJob(alice, "mlflow-a")
    const { job: theirs } = await newJob(bob, "mlflow-b")
    expect(shaped(MlflowRunResponse, await alice("POST", `/jobs/${job.id}/mlflowRun`, { mlflowRunId: run }))).toEqual({ mlflowRunId: run })
    expect(shaped(MlflowRunResponse, await bob("POST", `/jobs/${theirs.id}/mlflowRun`, { mlflowRunId: run }))).toEqual({ mlflowRunId: run })
  })

  test("job lists page with links that visit every job once, sort by any of upstream's columns, and search in Dioptra's language", async () => {
    const { alice } = service()
    const world = await registerWorld(alice, "paging")
    const descriptions = ["delta", "alpha", "echo", "bravo", "charlie", "alpha two", "golf"]
    const ids: Array<number> = []
    for (const description of descriptions) {
      ids.push(shaped(JobResponse, await alice("POST", `/experiments/${world.experiment}/jobs`, jobBody(world.entrypoint, world.queue, { description }))).id)
    }
    const seen: Array<number> = []
    let page = shaped(JobPage, await alice("GET", `/experiments/${world.experiment}/jobs?pageLength=3`))
    for (let i = 0; i < 5; i++) {
      seen.push(...page.data.map((j) => j.id))
      if (page.next === undefined) break
      const next = page.next.slice(page.next.indexOf("/api/v1") + "/api/v1".length)
      page = shaped(JobPage, await alice("GET", next))
    }
    expect(seen).toEqual(ids)
    expect(page.totalNumResults).toBe(7)
    const sorted = shaped(JobPage, await alice("GET", `/experiments/${world.experiment}/jobs?sortBy=description&descending=true`))
    expect(sorted.data.map((j) => j.description)).toEqual([...descriptions].sort().reverse())
    const search = async (query: string) =>
      shaped(JobPage, await alice("GET", `/experiments/${world.experiment}/jobs?search=${encodeURIComponent(query)}`)).data.map((j) => j.description)
    expect(await search("alpha")).toEqual(["alpha", "alpha two"])
    expect(await search("description:alpha")).toEqual(["alpha"])
    expect(await search("description:*o")).toEqual(["echo", "bravo", "alpha two"])
    expect(await search('description:"alpha two"')).toEqual(["alpha two"])
    expect(await search("description:?lpha*, timeout:2h")).toEqual(["alpha", "alpha two"])
    await alice("PUT", `/experiments/${world.experiment}/jobs/${ids[0]}/status`, { status: "started" })
    expect(await search("status:started")).toEqual(["delta"])
    refusedWith(await alice("GET", `/jobs?search=${encodeURIComponent("colour:red")}`), 400, ["InvalidSearch"])
    const byQueue = shaped(JobPage, await alice("GET", `/experiments/${world.experiment}/jobs?sortBy=queue&descending=True`))
    expect(byQueue.data).toHaveLength(7)
    refusedWith(await alice("GET", "/jobs?pageLength=0&sortBy=color&descending=yes"), 400, ["InvalidRequest", "InvalidRequest", "InvalidRequest"])
    refusedWith(await alice("GET", "/jobs?colour=red"), 400, ["InvalidRequest"])
    refusedWith(await alice("GET", "/experiments/999999/jobs"), 404, ["ResourceNotFound"])
    const all = shaped(JobPage, await alice("GET", "/jobs?pageLength=100"))
    expect(all.data.map((j) => j.id)).toEqual(expect.arrayContaining(ids))
  })

  test("every endpoint answers 401 without a token or with an unknown one", async () => {
    const { anonymous, server } = service()
    const stranger = (method: string, path: string) =>
      fetch(`${server.url}/api/v1${path}`, { method, headers: { authorization: "Bearer nobody-has-this" } }).then((r) => r.status)
    // Only sign-up and login are open: they are how a caller gets a session.
    expect(routes.filter((r) => r.open).map((r) => `${r.method} ${r.path}`)).toEqual(["POST /users", "POST /auth/login"])
    for (const route of routes.filter((r) => !r.open)) {
      const path = route.path.replace(/\{[A-Za-z]+\}/g, "1")
      refusedWith(await anonymous(route.method, path), 401, ["Unauthenticated"])
      expect(await stranger(route.method, path)).toBe(401)
    }
  })

  test("another group sees none of a group's jobs, logs, metrics or resources: 404 everywhere; a reader may only read (403)", async () => {
    const { alice, bob, reader } = service()
    const { world, job } = await newJob(alice, "groups")
    await alice("POST", `/jobs/${job.id}/metrics`, { name: "loss", value: 1, step: 0 })
    for (const path of [`/jobs/${job.id}`, `/jobs/${job.id}/status`, `/jobs/${job.id}/log`, `/jobs/${job.id}/metrics`, `/jobs/${job.id}/metrics/loss/snapshots`, `/jobs/${job.id}/mlflowRun`, `/experiments/${world.experiment}`, `/entrypoints/${world.entrypoint}`, `/queues/${world.queue}`, `/experiments/${world.experiment}/jobs`]) {
      refusedWith(await bob("GET", path), 404, ["ResourceNotFound"])
    }
    refusedWith(await bob("DELETE", `/jobs/${job.id}`), 404, ["ResourceNotFound"])
    refusedWith(await bob("PUT", `/experiments/${world.experiment}/jobs/${job.id}/status`, { status: "started" }), 404, ["ResourceNotFound"])
    refusedWith(await bob("POST", `/jobs/${job.id}/log`, { data: [{ severity: "INFO", loggerName: "x", message: "m" }] }), 404, ["ResourceNotFound"])
    refusedWith(await bob("POST", `/jobs/${job.id}/metrics`, { name: "loss", value: 2, step: 0 }), 404, ["ResourceNotFound"])
    refusedWith(await bob("POST", `/jobs/${job.id}/metrics`, { name: "1a", value: 2, step: -1 }), 404, ["ResourceNotFound"])
    expect(shaped(pageOf(MetricResponse), await alice("GET", `/jobs/${job.id}/metrics/loss/snapshots`)).data.map((m) => m.value)).toEqual([1])
    refusedWith(await bob("POST", `/experiments/${world.experiment}/jobs`, jobBody(world.entrypoint, world.queue)), 404, ["ExperimentNotFound", "EntrypointNotFound", "QueueNotFound"])
    expect(shaped(JobPage, await bob("GET", "/jobs?pageLength=100")).data.map((j) => j.id)).not.toContain(job.id)
    expect(shaped(JobResponse, await reader("GET", `/jobs/${job.id}`)).id).toBe(job.id)
    refusedWith(await reader("POST", `/experiments/${world.experiment}/jobs`, jobBody(world.entrypoint, world.queue)), 403, ["Forbidden"])
    refusedWith(await reader("DELETE", `/jobs/${job.id}`), 403, ["Forbidden"])
    expect(shaped(JobResponse, await alice("GET", `/jobs/${job.id}`)).status).toBe("queued")
  })

  test("unknown paths are 404 and known paths with another method 405, in the error body", async () => {
    const { alice } = service()
    refusedWith(await alice("GET", "/nothing/here"), 404, ["RouteNotFound"])
    refusedWith(await alice("PATCH", "/jobs/1"), 405, ["MethodNotAllowed"])
    expect((await fetch(`${service().server.url}/elsewhere`)).status).toBe(404)
  })

  test("the OpenAPI document is public and made from the schemas that decode the requests", async () => {
    const { anonymous } = service()
    const answer = await anonymous("GET", "/openapi.json")
    expect(answer.status).toBe(200)
    expect(answer.body.openapi).toBe("3.1.0")
    const operations = Object.entries(answer.body.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`)
    )
    expect(operations.sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort())
    const create = answer.body.paths["/experiments/{id}/jobs"].post
    expect(create.requestBody.content["application/json"].schema).toEqual(JSON.parse(JSON.stringify(Schema.toJsonSchemaDocument(JobRequest, { onExcessProperty: "error" }).schema)))
    expect(create.parameters).toEqual([expect.objectContaining({ name: "id", in: "path", required: true }), expect.objectContaining({ name: "Idempotency-Key", in: "header", required: false })])
  })

  test("experiments, entrypoints and queues: created, read and listed; duplicates 409, missing references 404, bad bodies 400", async () => {
    const { alice } = service()
    const world = await registerWorld(alice, "resources")
    const experiment = shaped(ExperimentResponse, await alice("GET", `/experiments/${world.experiment}`))
    expect(experiment).toMatchObject({
      name: "ex-resources",
      entrypoints: [{ id: world.entrypoint, name: "ep-resources", group: { name: "vision" } }],
      group: { name: "vision", url: expect.stringMatching(/\/api\/v1\/groups\/[0-9]+$/) }
    })
    expect(shaped(pageOf(ExperimentResponse), await alice("GET", "/experiments?pageLength=100")).data.map((e) => e.id)).toContain(world.experiment)
    expect((await alice("GET", "/entrypoints?pageLength=100")).body.data.map((e: { id: number }) => e.id)).toContain(world.entrypoint)
    expect((await alice("GET", "/queues?pageLength=100")).body.data.map((q: { id: number }) => q.id)).toContain(world.queue)
    refusedWith(await alice("POST", "/experiments", { name: "ex-resources" }), 409, ["AlreadyExists"])
    refusedWith(await alice("POST", "/experiments", { name: "ex-new", entrypoints: [999_998, 999_999] }), 404, ["ResourceNotFound", "ResourceNotFound"])
    const badQueue = await alice("POST", "/queues", { name: "q-resources", backend: { config: {}, runtime: {} } })
    refusedWith(badQueue, 400, badQueue.body.detail.map(() => "InvalidRequest"))
    expect(badQueue.body.detail.map((d: { path: string }) => d.path)).toEqual(expect.arrayContaining(["backend.config.namespace", "backend.runtime.name"]))
    refusedWith(await alice("POST", "/entrypoints", { ...entrypointBody("ep-x", [999_999]) }), 404, ["ResourceNotFound"])
    refusedWith(await alice("POST", "/entrypoints", entrypointBody("ep-resources", [world.queue])), 409, ["AlreadyExists"])
    refusedWith(
      await alice("POST", "/entrypoints", { ...entrypointBody("ep-dup", [world.queue]), parameters: [{ name: "a", type: "string" }, { name: "a", type: "float" }] }),
      400,
      ["InvalidRequest"]
    )
    refusedWith(await alice("POST", "/entrypoints", { ...entrypointBody("ep-graph", [world.queue]), taskGraph: { s: { "?": {} } } }), 400, ["InvalidRequest"])
    refusedWith(await alice("PUT", "/entrypoints/999999", entrypointBody("ep-none", [world.queue])), 404, ["ResourceNotFound"])
    refusedWith(await alice("POST", "/experiments/999999/entrypoints", { ids: [world.entrypoint] }), 404, ["ResourceNotFound"])
    refusedWith(await alice("GET", "/artifacts/999999"), 404, ["ResourceNotFound"])
    refusedWith(await alice("POST", "/artifacts/999999/snapshots"), 404, ["ResourceNotFound"])
  })
})
