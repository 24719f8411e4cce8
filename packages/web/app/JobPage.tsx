// One job: what it runs, where it waits and why, its history, logs, metrics, and the actions on it.
import { Fragment } from "preact"
import { useState } from "preact/hooks"
import { call } from "./api.ts"
import { MetricCharts } from "./Charts.tsx"
import { Confirm, type Asking } from "./Confirm.tsx"
import { formatSeconds, formatTime, formatValue } from "./format.ts"
import { usePoll } from "./hooks.ts"
import { StatusBadge } from "./Lists.tsx"
import { Logs } from "./Logs.tsx"
import { routeHash } from "./route.ts"

/** The job page. */
export const JobPage = ({ id }: { readonly id: number }) => {
  const job = usePoll(() => readJob(id), [id])
  const status = usePoll(() => call((c) => c.jobs.status({ params: { id } })), [id])
  const [asking, setAsking] = useState<Asking | undefined>(undefined)
  const [actionError, setActionError] = useState<string | undefined>(undefined)
  const j = job.data
  const act = (name: string, question: string, run: () => Promise<{ readonly id: number }>) => () =>
    setAsking({
      question,
      yes: () => {
        setActionError(undefined)
        run().then(
          (answer) => {
            if (answer.id !== id) location.hash = routeHash({ page: "job", id: answer.id })
            else {
              job.reload()
              status.reload()
            }
          },
          (cause: unknown) => setActionError(`${name}: ${cause instanceof Error ? cause.message : String(cause)}`)
        )
      }
    })
  const live = j !== undefined && (j.status === "queued" || j.status === "started" || j.status === "deferred")
  return (
    <>
      <p class="crumbs">
        {j !== undefined && <a href={routeHash({ page: "experiment", id: j.experiment.id })}>{j.experiment.name}</a>} /
      </p>
      <h1>
        Job {id} {j !== undefined && <StatusBadge status={j.status} testid="job-status" />}
      </h1>
      {job.error !== undefined && <p class="error" role="alert">{job.error}</p>}
      {j !== undefined && (
        <>
          {j.description && <p>{j.description}</p>}
          <div class="actions" role="group" aria-label="actions">
            <button type="button" class="danger" data-testid="action-cancel" disabled={!live} onClick={act("Cancel", `Cancel job ${id}? It fails with reason cancelled and its TrainJob is stopped.`, () => call((c) => c.jobs.cancel({ params: { id } })))}>
              Cancel
            </button>
            <button type="button" data-testid="action-hold" disabled={j.status !== "queued" && j.status !== "started"} onClick={act("Hold", `Hold job ${id}?`, () => call((c) => c.jobs.hold({ params: { id } })))}>
              Hold
            </button>
            <button type="button" data-testid="action-release" disabled={j.status !== "deferred"} onClick={act("Release", `Release job ${id}?`, () => call((c) => c.jobs.release({ params: { id } })))}>
              Release
            </button>
            <button type="button" data-testid="action-rerun" onClick={act("Re-run", `Re-run job ${id} as a new queued job with the same values?`, () => call((c) => c.jobs.rerun({ params: { id } })))}>
              Re-run
            </button>
          </div>
          {actionError !== undefined && <p class="error" role="alert">{actionError}</p>}
          <div class="grid">
            <section class="panel" aria-label="job">
              <h2>Job</h2>
              <dl class="facts">
                <dt>Experiment</dt>
                <dd>
                  <a href={routeHash({ page: "experiment", id: j.experiment.id })}>{j.experiment.name}</a>
                </dd>
                <dt>Entrypoint</dt>
                <dd>
                  {j.entrypoint.name} <span class="muted">snapshot {j.entrypointSnapshot}</span>
                </dd>
                <dt>Timeout</dt>
                <dd>
                  {j.timeout} <span class="muted">({formatSeconds(j.timeoutSeconds)})</span>
                </dd>
                <dt>Created</dt>
                <dd>{formatTime(j.createdOn)}</dd>
                <dt>By</dt>
                <dd>{j.user.username}</dd>
                <dt>MLflow run</dt>
                <dd data-testid="mlflow-run">{j.mlflowRunId ?? <span class="muted">none</span>}</dd>
                {j.dispatch.rerunOf !== undefined && (
                  <>
                    <dt>Re-run of</dt>
                    <dd>
                      <a href={routeHash({ page: "job", id: j.dispatch.rerunOf })}>#{j.dispatch.rerunOf}</a>
                    </dd>
                  </>
                )}
              </dl>
              <h2>Values</h2>
              <Pairs entries={Object.entries(j.values)} testid="job-values" />
              <h2>Swaps</h2>
              <Pairs entries={Object.entries(j.swaps)} testid="job-swaps" />
            </section>
            <Dispatch job={j} />
            <section class="panel" aria-label="status history">
              <h2>Status history</h2>
              {status.error !== undefined && <p class="error">{status.error}</p>}
              <div class="table-wrap">
              <table class="history" data-testid="status-history">
                <thead>
                  <tr>
                    <th>Status</th>
                    <th>When</th>
                    <th>Why</th>
                  </tr>
                </thead>
                <tbody>
                  {status.data?.history.map((h, i) => (
                    <tr key={i} data-testid="history-row" data-status={h.status}>
                      <td>
                        <StatusBadge status={h.status} />
                      </td>
                      <td>{formatTime(h.changedOn)}</td>
                      <td class="wrap">{h.reason ?? ""}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              </div>
            </section>
            <Artifacts id={id} produced={j.artifacts.map((a) => a.id)} />
          </div>
          <Logs id={id} />
          <MetricCharts id={id} live={live} />
        </>
      )}
      <Confirm asking={asking} done={() => setAsking(undefined)} />
    </>
  )
}

const Pairs = ({ entries, testid }: { readonly entries: ReadonlyArray<readonly [string, unknown]>; readonly testid: string }) =>
  entries.length === 0 ? (
    <p class="muted">none</p>
  ) : (
    <dl class="facts" data-testid={testid}>
      {entries.map(([k, v]) => (
        <Fragment key={k}>
          <dt>{k}</dt>
          <dd>{formatValue(v)}</dd>
        </Fragment>
      ))}
    </dl>
  )

const readJob = (id: number) => call((c) => c.jobs.read({ params: { id } }))
type JobData = Awaited<ReturnType<typeof readJob>>

/** Where the job waits or runs: its queue and the queue's gate, the dispatch state and why, the TrainJob. */
const Dispatch = ({ job }: { readonly job: JobData }) => {
  const queue = usePoll(() => call((c) => c.queues.read({ params: { id: job.queue.id } })), [job.queue.id])
  const d = job.dispatch
  return (
    <section class="panel" aria-label="dispatch">
      <h2>Dispatch</h2>
      <dl class="facts">
        <dt>Queue</dt>
        <dd>
          <a href={routeHash({ page: "queues" })}>{job.queue.name}</a>
        </dd>
        <dt>Gate</dt>
        <dd data-testid="queue-gate" data-gate={queue.data?.gate.state}>
          {queue.data === undefined ? "…" : <span class={`gate gate-${queue.data.gate.state}`}>{queue.data.gate.state}</span>}
          {queue.data?.gate.reason !== undefined && <div class="muted">{queue.data.gate.reason}</div>}
          {queue.data?.gate.checkedOn !== undefined && <div class="muted">proven {formatTime(queue.data.gate.checkedOn)}</div>}
        </dd>
        <dt>State</dt>
        <dd data-testid="dispatch-state">
          {d.state}
          {d.state === "stopping" && <div class="muted">removing its TrainJob and runtime copy from the cluster; tried again until nothing is left</div>}
        </dd>
        <dt>Reason</dt>
        <dd data-testid="dispatch-reason">{d.reason ?? <span class="muted">none</span>}</dd>
        <dt>Attempts</dt>
        <dd data-testid="dispatch-attempts">{d.attempts}</dd>
        <dt>Next retry</dt>
        <dd data-testid="next-retry">{d.nextRetryAt === undefined ? <span class="muted">none</span> : formatTime(d.nextRetryAt)}</dd>
        <dt>TrainJob</dt>
        <dd data-testid="trainjob">{d.trainJob === undefined ? <span class="muted">not made yet</span> : `${d.trainJob.namespace}/${d.trainJob.name}${d.trainJob.uid === undefined ? "" : ` (uid ${d.trainJob.uid})`}`}</dd>
        {d.error !== undefined && (
          <>
            <dt>Last error</dt>
            <dd class="error">
              {d.error.error}: {d.error.reasons.join("; ")}
            </dd>
          </>
        )}
      </dl>
      <h2>Entrypoint snapshot</h2>
      <Snapshot entrypoint={job.entrypoint.id} snapshot={job.entrypointSnapshot} />
    </section>
  )
}

/** The entrypoint as the job runs it: the snapshot it was created with. */
const Snapshot = ({ entrypoint, snapshot }: { readonly entrypoint: number; readonly snapshot: number }) => {
  const [open, setOpen] = useState(false)
  const ep = usePoll(
    () => (open ? call((c) => c.entrypoints.snapshot({ params: { id: entrypoint, snapshotId: snapshot } })) : Promise.resolve(undefined)),
    [entrypoint, snapshot, open],
    undefined
  )
  const version =
    ep.data === undefined
      ? undefined
      : {
          snapshot: ep.data.snapshot,
          parameters: ep.data.parameters,
          artifactParameters: ep.data.artifactParameters,
          taskGraph: ep.data.taskGraph,
          ...(ep.data.image === undefined ? {} : { image: ep.data.image }),
          ...(ep.data.command === undefined ? {} : { command: ep.data.command })
        }
  return (
    <details onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Snapshot {snapshot}</summary>
      {ep.error !== undefined && <p class="error">{ep.error}</p>}
      {version !== undefined && <pre data-testid="entrypoint-snapshot">{JSON.stringify(version, null, 2)}</pre>}
    </details>
  )
}

/** What the job loads and what it produced. */
const Artifacts = ({ id, produced }: { readonly id: number; readonly produced: ReadonlyArray<number> }) => {
  const inputs = usePoll(() => call((c) => c.jobs.artifactParameters({ params: { id } })), [id], undefined)
  const outputs = usePoll(() => Promise.all(produced.map((a) => call((c) => c.artifacts.read({ params: { id: a } })))), [produced.join(",")], undefined)
  return (
    <section class="panel" aria-label="artifacts">
      <h2>Artifacts</h2>
      <h3>Inputs</h3>
      {inputs.data === undefined || Object.keys(inputs.data).length === 0 ? (
        <p class="muted">none</p>
      ) : (
        <dl class="facts">
          {Object.entries(inputs.data).map(([name, a]) => (
            <Fragment key={name}>
              <dt>{name}</dt>
              <dd>
                #{a.artifact_id} {a.artifact_type} {a.artifact_uri ?? ""}
              </dd>
            </Fragment>
          ))}
        </dl>
      )}
      <h3>Produced</h3>
      {produced.length === 0 ? (
        <p class="muted">none</p>
      ) : (
        <ul data-testid="artifacts">
          {outputs.data?.map((a) => (
            <li key={a.id} data-testid="artifact-row" data-id={a.id}>
              #{a.id} {a.artifactType} {a.uri !== undefined && <code>{a.uri}</code>} {a.description ?? ""}
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
