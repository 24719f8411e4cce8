// A metric's snapshots cut to a chart's width (`columns`): the answer is the pure cut of the whole series, paged as
// any list, and a request without `columns` answers the whole series as before.
import { downsampleSeries, maxSeriesColumns } from "@dispatch/jobs"
import { describe, expect, test } from "vitest"
import { metricNumber } from "../src/wire/ApiSchemas.ts"
import { newJob } from "./Fixtures.ts"
import { backends, useService } from "./Service.ts"

// 300 values over steps 0..249: a curve, re-posts at every tenth step, and a few non-finite values.
const posted = Array.from({ length: 300 }, (_, i) => {
  const step = i < 250 ? i : (i - 250) * 5
  const value = i === 40 ? "nan" : i === 90 ? "inf" : i === 200 ? "-inf" : Math.round(1000 * (2 / (1 + step / 20) + 0.1 * Math.sin(i))) / 1000
  return { name: "loss", step, value }
})

describe.each(backends)("a metric series cut to a chart's width on %s", (backend) => {
  const service = useService(backend)

  test("answers the cut of the whole series, paged, with links that keep the width; without a width, the whole series", async () => {
    const { alice } = service()
    const { job } = await newJob(alice, "series")
    for (const body of posted) expect((await alice("POST", `/jobs/${job.id}/metrics`, body)).status).toBe(200)
    const whole = await alice("GET", `/jobs/${job.id}/metrics/loss/snapshots?pageLength=10000`)
    expect(whole.status).toBe(200)
    expect(whole.body.totalNumResults).toBe(300)
    expect(whole.body.data).toHaveLength(300)
    const expected = downsampleSeries(whole.body.data as ReadonlyArray<{ step: number; value: number | "nan" | "inf" | "-inf" }>, 20, (p) => ({ step: p.step, value: metricNumber(p.value) }))
    expect(expected.length).toBeLessThan(300)

    const cut = await alice("GET", `/jobs/${job.id}/metrics/loss/snapshots?columns=20&pageLength=10000`)
    expect(cut.status).toBe(200)
    expect(cut.body).toMatchObject({ index: 0, isComplete: true, totalNumResults: expected.length })
    expect(cut.body.data).toEqual(expected)

    const first = await alice("GET", `/jobs/${job.id}/metrics/loss/snapshots?columns=20&pageLength=7`)
    expect(first.body.data).toEqual(expected.slice(0, 7))
    expect(first.body.next).toContain("columns=20")
    const second = await alice("GET", `/jobs/${job.id}/metrics/loss/snapshots?columns=20&pageLength=7&index=7`)
    expect(second.body.data).toEqual(expected.slice(7, 14))
  })

  test.each(["0", String(maxSeriesColumns + 1), "1.5", "x"])("refuses columns=%s with a 400 naming it", async (columns) => {
    const { alice } = service()
    const { job } = await newJob(alice, `series-${columns}`)
    const answer = await alice("GET", `/jobs/${job.id}/metrics/loss/snapshots?columns=${columns}`)
    expect(answer.status).toBe(400)
    expect(JSON.stringify(answer.body.detail)).toContain("columns")
  })
})
