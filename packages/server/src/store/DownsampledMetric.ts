// A metric's series as a chart of a given width draws it, read whole and cut down here (the cut needs every point
// of each pixel column), so that a page of 100,000 points opens with a few thousand.
import { downsampleSeries } from "@dispatch/jobs"
import { metricNumber } from "../wire/ApiSchemas.ts"
import type { Sql } from "./Database.ts"
import { metricSnapshots } from "./JobStore.ts"

/** One window of metric `name` of job `job` cut to `columns` pixel columns (`downsampleSeries`), and how many points
 * the cut series holds. */
export const downsampledSnapshots = async (sql: Sql, job: number, name: string, columns: number, offset: number, limit: number) => {
  const { records } = await metricSnapshots(sql, job, name, 0, Number.MAX_SAFE_INTEGER)
  const series = downsampleSeries(records, columns, (record) => ({ step: record.step, value: metricNumber(record.value) }))
  return { records: series.slice(offset, offset + limit), total: series.length }
}
