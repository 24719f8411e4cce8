// A metric's series as a chart of a given width draws it: every point's step and value read (the cut needs every
// point of each pixel column), the cut made here, and only the page of kept points read whole, so that a page of
// 100,000 points opens with a few thousand and the service reads no time or name it does not answer.
import { downsampleSeries } from "@dispatch/jobs"
import { Effect } from "effect"
import { metricNumber } from "../wire/ApiSchemas.ts"
import { jobHistory } from "./JobHistory.ts"

/** One window of metric `name` of job `job` cut to `columns` pixel columns (`downsampleSeries`), and how many points
 * the cut series holds. */
export const downsampledSnapshots = (job: number, name: string, columns: number, offset: number, limit: number) =>
  Effect.gen(function* () {
    const history = yield* jobHistory
    const points = yield* history.metricPoints({ job, name })
    const series = downsampleSeries(points, columns, (point) => ({ step: point.step, value: metricNumber(point.specialValue ?? point.value) }))
    const records = yield* history.metricValuesWithIds(series.slice(offset, offset + limit).map((point) => point.id))
    return { records, total: series.length }
  })
