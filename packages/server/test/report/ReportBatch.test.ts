// The report batch endpoint on the wire: what it stores (read back from the database), its limits, its
// all-or-nothing refusal naming every bad record, its idempotent retry, and who may call it.
import { describe, expect, test } from "vitest"
import { reportBatchLimits } from "../../src/wire/ReportBatch.ts"
import { openApi } from "../../src/Serve.ts"
import { tokens } from "../Fixtures.ts"
import { postBatch, useReportService } from "./ReportService.ts"

describe.each(["pglite", "postgres"] as const)("the report batch endpoint on %s", (backend) => {
  const service = useReportService(backend)

  test("stores every metric value and log record with its own step and time, in order, non-finite values as Dioptra's wire spells them", async () => {
    const { server, storedOf, job } = service()
    const { id, token } = await job("stores")
    const body = {
      metrics: [
        { name: "loss", value: 0.9, step: 0, timestamp: "2026-01-02T03:04:05.678901" },
        { name: "loss", value: 0.5, step: 1, timestamp: "2026-01-02T03:04:06+00:00" },
        { name: "loss", value: "nan", step: 2 },
        { name: "acc", value: "-inf", step: 2 },
        { name: "loss", value: 0.4, step: 1 }
      ],
      logs: [
        { severity: "INFO", loggerName: "train", message: "epoch 1", timestamp: "2026-01-02T03:04:05Z" },
        { severity: "ERROR", loggerName: "train", message: "epoch 2" }
      ]
    }
    const answer = await postBatch(server.url, id, token, body)
    expect(answer).toEqual({ status: 200, body: { job: id, metrics: 5, logs: 2, dropped: { metrics: 0, logs: 0 } } })
    const stored = await storedOf(id)
    expect(stored.metrics.map((m) => [m["name"], m["step"], m["value"], m["specialValue"]])).toEqual([
      ["loss", 0, 0.9, null],
      ["loss", 1, 0.5, null],
      ["loss", 2, 0, "nan"],
      ["acc", 2, 0, "-inf"],
      ["loss", 1, 0.4, null]
    ])
    expect(stored.metrics[0]?.["atMs"]).toBe(Date.parse("2026-01-02T03:04:05.678Z"))
    expect(stored.metrics[1]?.["atMs"]).toBe(Date.parse("2026-01-02T03:04:06Z"))
    expect(stored.logs.map((l) => [l["severity"], l["loggerName"], l["message"]])).toEqual([
      ["INFO", "train", "epoch 1"],
      ["ERROR", "train", "epoch 2"]
    ])
    expect(stored.logs[0]?.["atMs"]).toBe(Date.parse("2026-01-02T03:04:05Z"))
    // Read back through Dioptra's endpoints as any client reads them.
    const snapshots = await service().alice("GET", `/jobs/${id}/metrics/loss/snapshots`)
    expect(snapshots.body.data.map((m: any) => m.value)).toEqual([0.9, 0.5, 0.4, "nan"])
  })

  test("the reporter's drops are stored as one WARNING log record and answered", async () => {
    const { server, storedOf, job } = service()
    const { id, token } = await job("drops")
    const answer = await postBatch(server.url, id, token, { metrics: [{ name: "loss", value: 1 }], dropped: { metrics: 12, logs: 3 } })
    expect(answer.body).toEqual({ job: id, metrics: 1, logs: 0, dropped: { metrics: 12, logs: 3 } })
    const { logs } = await storedOf(id)
    expect(logs.map((l) => [l["severity"], l["loggerName"], l["message"]])).toEqual([
      ["WARNING", "dispatch.report", expect.stringContaining("dropped 12 metric values and 3 log records")]
    ])
    // No drops, no record.
    await postBatch(server.url, id, token, { dropped: { metrics: 0, logs: 0 } })
    expect((await storedOf(id)).logs).toHaveLength(1)
  })

  test("a batch with bad records stores nothing and names every bad record at once", async () => {
    const { server, storedOf, job } = service()
    const { id, token } = await job("bad")
    const answer = await postBatch(server.url, id, token, {
      metrics: [
        { name: "loss", value: 1, step: 0 },
        { name: "9lives", value: 1, step: -1 },
        { name: "ok", value: 2, timestamp: "yesterday" }
      ],
      logs: [
        { severity: "INFO", loggerName: "t", message: "fine" },
        { severity: "INFO", loggerName: "t", message: "late", timestamp: "soon" }
      ]
    })
    expect(answer.status).toBe(400)
    expect(answer.body.error).toBe("InvalidRecord")
    expect(answer.body.detail.map((d: any) => [d.record, d.problem])).toEqual([
      ["metrics[1]", "InvalidMetricName"],
      ["metrics[1]", "InvalidMetricStep"],
      ["metrics[2]", "InvalidMetricTimestamp"],
      ["logs[1]", "InvalidLogTimestamp"]
    ])
    expect(await storedOf(id)).toEqual({ metrics: [], logs: [] })
    // A record of the wrong shape is named by its path, and nothing is stored either.
    const shapes = await postBatch(server.url, id, token, { metrics: [{ name: "loss", value: true }], logs: [{ severity: "LOUD", loggerName: "t", message: "m" }] })
    expect(shapes.status).toBe(400)
    expect(shapes.body.detail.map((d: any) => d.path)).toEqual(expect.arrayContaining(["metrics.0.value", "logs.0.severity"]))
    expect(await storedOf(id)).toEqual({ metrics: [], logs: [] })
  })

  test("more records than a batch takes is 413 TooManyRecords, a body past its bytes 413 BodyTooLarge: nothing stored", async () => {
    const { server, storedOf, job } = service()
    const { id, token } = await job("limits")
    const metrics = Array.from({ length: reportBatchLimits.records }, (_, i) => ({ name: "m", value: i, step: i }))
    const crowded = await postBatch(server.url, id, token, { metrics, logs: [{ severity: "INFO", loggerName: "t", message: "one too many" }] })
    expect(crowded.status).toBe(413)
    expect(crowded.body.error).toBe("TooManyRecords")
    expect(crowded.body.message).toContain(`at most ${reportBatchLimits.records}`)
    const big = await postBatch(server.url, id, token, { logs: [{ severity: "INFO", loggerName: "t", message: "x".repeat(60_000) }], pad: "y".repeat(reportBatchLimits.bytes) })
    expect(big.status).toBe(413)
    expect(big.body.error).toBe("BodyTooLarge")
    expect(big.body.message).toContain(String(reportBatchLimits.bytes))
    expect(await storedOf(id)).toEqual({ metrics: [], logs: [] })
    // Exactly at the limit is taken.
    const full = await postBatch(server.url, id, token, { metrics })
    expect(full.status).toBe(200)
    expect((await storedOf(id)).metrics).toHaveLength(reportBatchLimits.records)
  })

  test("a retried batch under its Idempotency-Key gets the first answer and is stored once; another batch under it is 422", async () => {
    const { server, storedOf, job } = service()
    const { id, token } = await job("retry")
    const body = { metrics: [{ name: "loss", value: 0.3, step: 7 }], logs: [{ severity: "INFO", loggerName: "t", message: "once" }] }
    const first = await postBatch(server.url, id, token, body, "batch-1")
    const again = await postBatch(server.url, id, token, body, "batch-1")
    expect(again).toEqual(first)
    expect(first.status).toBe(200)
    const stored = await storedOf(id)
    expect(stored.metrics).toHaveLength(1)
    expect(stored.logs).toHaveLength(1)
    const other = await postBatch(server.url, id, token, { metrics: [{ name: "loss", value: 0.2, step: 8 }] }, "batch-1")
    expect(other.status).toBe(422)
    expect((await storedOf(id)).metrics).toHaveLength(1)
    // Without a key every post is stored: the key is what makes a retry safe.
    await postBatch(server.url, id, token, body)
    expect((await storedOf(id)).metrics).toHaveLength(2)
  })

  test("a job's report token posts to its own job only; a user with write access may post too; a reader may not", async () => {
    const { server, storedOf, job } = service()
    const mine = await job("own")
    const theirs = await job("other")
    const body = { metrics: [{ name: "loss", value: 1 }] }
    expect((await postBatch(server.url, theirs.id, mine.token, body)).status).toBe(403)
    expect((await postBatch(server.url, mine.id, "djr1.1.00", body)).status).toBe(401)
    expect((await postBatch(server.url, mine.id, tokens.reader, body)).status).toBe(403)
    expect((await postBatch(server.url, mine.id, tokens.alice, body)).status).toBe(200)
    expect((await storedOf(theirs.id)).metrics).toHaveLength(0)
    expect((await storedOf(mine.id)).metrics).toHaveLength(1)
  })

  test("a job the caller cannot see (another group's, deleted, none) is 404 before anything wrong with the batch, and nothing is stored", async () => {
    const { server, storedOf, job, alice } = service()
    const gone = await job("gone")
    const kept = await job("kept")
    expect((await alice("DELETE", `/jobs/${gone.id}`)).status).toBe(200)
    const batches = [
      { metrics: [{ name: "loss", value: 1 }] },
      { metrics: [{ name: "loss", value: 1 }], logs: [{ severity: "INFO", loggerName: "t", message: "m" }] },
      { logs: [{ severity: "INFO", loggerName: "t", message: "m" }] },
      { dropped: { metrics: 1 } },
      {},
      { metrics: [{ name: "9lives", value: 1, step: -1 }] }
    ]
    for (const body of batches) {
      for (const [id, token] of [[kept.id, tokens.bob], [gone.id, tokens.alice], [gone.id, gone.token], [kept.id + 1000, tokens.alice]] as const) {
        const answer = await postBatch(server.url, id, token, body)
        // A deleted job's report token no longer stands for a job: 401, as before any batch is read.
        if (token === gone.token) expect([answer.status, answer.body.error]).toEqual([401, "Unauthenticated"])
        else expect([answer.status, answer.body.error, answer.body.detail]).toEqual([404, "ResourceNotFound", [expect.objectContaining({ resource: "job", id: String(id) })]])
      }
    }
    expect(await storedOf(kept.id)).toEqual({ metrics: [], logs: [] })
    expect(await storedOf(gone.id)).toEqual({ metrics: [], logs: [] })
    // The same batches from the job's own token are stored (or refused for what is wrong with them).
    expect((await Promise.all(batches.map((body) => postBatch(server.url, kept.id, kept.token, body)))).map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 400])
    const stored = await storedOf(kept.id)
    expect([stored.metrics.length, stored.logs.length]).toEqual([2, 3])
  })
})

describe("the report batch endpoint in the OpenAPI document", () => {
  test("is tagged reports and marked as the service's extension, with its limits", () => {
    const document = openApi() as any
    const operation = document.paths["/jobs/{id}/reports"].post
    expect(operation.tags).toEqual(["reports"])
    expect(operation["x-dispatch"]).toEqual({ extension: true, limits: reportBatchLimits })
    expect(operation.parameters.map((p: any) => p.name)).toContain("Idempotency-Key")
    expect(document.tags.find((t: any) => t.name === "reports").description).toContain("extension")
    // Dioptra's endpoints carry no such mark.
    expect(document.paths["/jobs/{id}/metrics"].post["x-dispatch"]).toBeUndefined()
  })
})
