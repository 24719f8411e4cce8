import type { JobStatus } from "@dispatch/jobs"
import type { Sql } from "../store/Database.ts"
import { onStore } from "../store/DatabaseBridge.ts"
import { jobHistory } from "../store/JobHistory.ts"

/** Appends a status to a job's history, with the service's reason when it gave one. */
export const insertHistory = (sql: Sql, id: number, status: JobStatus, at: string, reason?: string): Promise<void> =>
  onStore(sql, jobHistory, (history) => history.appendStatus(id, status, at, reason ?? null))
