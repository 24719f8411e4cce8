// @dispatch/report: a training job's metrics and log lines to the dispatch job service, from Node, without ever
// slowing or breaking training. In a job's pod the service sets DIOPTRA_SERVICE_URL, DIOPTRA_JOB_ID and
// DIOPTRA_REPORT_TOKEN; the module's calls read them through the module's reporter, made on first use.
import { Reporter, type ReporterStats } from "./Reporter.ts"
import type { ReporterOptions } from "./Settings.ts"

export { Reporter, type ReporterRuntime, type ReporterStats } from "./Reporter.ts"
export type { ReporterOptions } from "./Settings.ts"
export type { Clock, Timer } from "./Clock.ts"
export type { Answer, Transport } from "./Transport.ts"
export type { Severity } from "./WireRecord.ts"

let shared: Reporter | undefined
const moduleReporter = (): Reporter => (shared ??= new Reporter())

/** The module's reporter, made from the environment on first use; with options, a new reporter of its own. */
export const reporter = (options?: ReporterOptions): Reporter => (options === undefined ? moduleReporter() : new Reporter(options))

/** Records a metric's value at a step (0 when absent) with the module's reporter; returns at once. */
export const logMetric = (name: string, value: number, step?: number): void => (shared ?? moduleReporter()).logMetric(name, value, step)

/** Records several metrics at one step with the module's reporter; returns at once. */
export const logMetrics = (metrics: Readonly<Record<string, number>>, step?: number): void => (shared ?? moduleReporter()).logMetrics(metrics, step)

/** Records a log line with the module's reporter; returns at once. */
export const log = (level: string | number, message: string, loggerName?: string): void => (shared ?? moduleReporter()).log(level, message, loggerName)

/** Sends what the module's reporter holds, waiting at most `timeoutMs`; true when all was sent. */
export const flush = (timeoutMs?: number): Promise<boolean> => moduleReporter().flush(timeoutMs)

/** Flushes and stops the module's reporter. */
export const close = (timeoutMs?: number): Promise<boolean> => moduleReporter().close(timeoutMs)

/** What the module's reporter sent, dropped and refused. */
export const stats = (): ReporterStats => moduleReporter().stats()
