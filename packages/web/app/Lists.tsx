// The experiments, their jobs and all jobs: searched with the API's search language, sorted, paged, kept live.
import type { ComponentChildren } from "preact"
import { useEffect, useRef, useState } from "preact/hooks"
import { call } from "./api.ts"
import { formatAgo, formatTime } from "./format.ts"
import { usePoll } from "./hooks.ts"
import { routeHash } from "./route.ts"

const pageLength = 20

/** A search box whose value is handed on once typing pauses. */
const SearchBox = ({ testid, label, onSearch }: { readonly testid: string; readonly label: string; readonly onSearch: (search: string) => void }) => {
  const [text, setText] = useState("")
  // Only a change is handed on: the box's first render searches nothing new (and must not send the list back to its first page).
  const handed = useRef("")
  useEffect(() => {
    const timer = setTimeout(() => {
      const search = text.trim()
      if (search === handed.current) return
      handed.current = search
      onSearch(search)
    }, 300)
    return () => clearTimeout(timer)
  }, [text])
  return (
    <label class="search">
      <span>{label}</span>
      <input type="search" data-testid={testid} value={text} placeholder="e.g. status:started or name:mnist*" onInput={(e) => setText(e.currentTarget.value)} />
    </label>
  )
}

/** Previous and next page buttons, and where the page is. */
export const Pager = ({ index, shown, total, onIndex, size = pageLength }: { readonly index: number; readonly shown: number; readonly total: number; readonly onIndex: (index: number) => void; readonly size?: number }) => (
  <nav class="pager" aria-label="pages">
    <button type="button" data-testid="page-prev" disabled={index === 0} onClick={() => onIndex(Math.max(0, index - size))}>
      ← Previous
    </button>
    <span aria-live="polite">{total === 0 ? "none" : `${index + 1}–${index + shown} of ${total}`}</span>
    <button type="button" data-testid="page-next" disabled={index + shown >= total} onClick={() => onIndex(index + size)}>
      Next →
    </button>
  </nav>
)

/** Below a list: loading, or where its page is and the buttons to the others. */
const ListEnd = ({ page, error, index, onIndex }: { readonly page: { readonly data: ReadonlyArray<unknown>; readonly totalNumResults: number } | undefined; readonly error: string | undefined; readonly index: number; readonly onIndex: (index: number) => void }) =>
  page === undefined ? error === undefined ? <p class="muted">Loading…</p> : null : <Pager index={index} shown={page.data.length} total={page.totalNumResults} onIndex={onIndex} />

/** A list's frame: its search box, its error, its table (the head's cells and the body's rows given) and its pager. */
const ListTable = (props: {
  readonly label: string
  readonly searchTestid: string
  readonly onSearch: (search: string) => void
  readonly error: string | undefined
  readonly page: { readonly data: ReadonlyArray<unknown>; readonly totalNumResults: number } | undefined
  readonly index: number
  readonly onIndex: (index: number) => void
  readonly head: ComponentChildren
  readonly children: ComponentChildren
}) => (
  <section aria-label={props.label}>
    <SearchBox testid={props.searchTestid} label={`Search ${props.label}`} onSearch={props.onSearch} />
    {props.error !== undefined && (
      <p class="error" role="alert">
        {props.error}
      </p>
    )}
    <div class="table-wrap">
      <table class="list">
        <thead>
          <tr>{props.head}</tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
    <ListEnd page={props.page} error={props.error} index={props.index} onIndex={props.onIndex} />
  </section>
)

/** A column header that sorts by its column: again to reverse. */
const SortHeader = <C extends string>({ column, label, sort, onSort }: { readonly column: C; readonly label: string; readonly sort: { readonly by: C; readonly descending: boolean }; readonly onSort: (sort: { by: C; descending: boolean }) => void }) => (
  <th aria-sort={sort.by === column ? (sort.descending ? "descending" : "ascending") : "none"}>
    <button type="button" class="sort" onClick={() => onSort({ by: column, descending: sort.by === column ? !sort.descending : false })}>
      {label} {sort.by === column ? (sort.descending ? "▼" : "▲") : ""}
    </button>
  </th>
)

/** A list's search, sort (newest first by default) and page, the query they make, and its sorting headers. */
const useListQuery = <C extends string>() => {
  const [search, setSearch] = useState("")
  const [sort, setSort] = useState<{ by: C | "id"; descending: boolean }>({ by: "id", descending: true })
  const [index, setIndex] = useState(0)
  const query = { index, pageLength, sortBy: sort.by, descending: sort.descending ? ("true" as const) : ("false" as const), ...(search === "" ? {} : { search }) }
  const header = (column: C, label: string) => <SortHeader column={column} label={label} sort={sort} onSort={(s) => (setSort(s), setIndex(0))} />
  const onSearch = (text: string) => (setSearch(text), setIndex(0))
  return { query, index, setIndex, header, onSearch }
}

type JobColumn = "id" | "status" | "createdOn" | "lastModifiedOn" | "description" | "queue" | "entrypoint"

/** A status as a badge. */
export const StatusBadge = ({ status, testid }: { readonly status: string; readonly testid?: string }) => (
  <span class={`status status-${status}`} data-testid={testid}>
    {status}
  </span>
)

/** A stored row the service could not render, in place of its row: its id and why, so it can be deleted. */
const UnreadableRow = ({ item, columns, testid }: { readonly item: { readonly id: number; readonly message: string }; readonly columns: number; readonly testid: string }) => (
  <tr key={item.id} data-testid={testid} data-id={item.id} data-unreadable="true">
    <td>#{item.id}</td>
    <td colSpan={columns - 1} class="error">
      {item.message}
    </td>
  </tr>
)

/** The jobs of one experiment, or of every experiment: live, searchable, sortable, paged. */
export const JobList = ({ experimentId }: { readonly experimentId?: number }) => {
  const { query, index, setIndex, header, onSearch } = useListQuery<JobColumn>()
  const { data, error } = usePoll(
    () => call((c) => (experimentId === undefined ? c.jobs.list({ query }) : c.jobs.listInExperiment({ params: { id: experimentId }, query }))),
    [experimentId, JSON.stringify(query)]
  )
  const now = Date.now()
  const head = (
    <>
      {header("id", "Job")}
      {header("status", "Status")}
      {experimentId === undefined && <th>Experiment</th>}
      {header("entrypoint", "Entrypoint")}
      {header("queue", "Queue")}
      {header("description", "Description")}
      {header("createdOn", "Created")}
      {header("lastModifiedOn", "Changed")}
    </>
  )
  return (
    <ListTable label="jobs" searchTestid="job-search" onSearch={onSearch} error={error} page={data} index={index} onIndex={setIndex} head={head}>
      {data?.data.map((job) =>
        "error" in job ? (
          <UnreadableRow item={job} columns={experimentId === undefined ? 8 : 7} testid="job-row" />
        ) : (
        <tr key={job.id} data-testid="job-row" data-id={job.id} data-status={job.status}>
          <td>
            <a href={routeHash({ page: "job", id: job.id })}>#{job.id}</a>
          </td>
          <td>
            <StatusBadge status={job.status} />
          </td>
          {experimentId === undefined && (
            <td>
              <a href={routeHash({ page: "experiment", id: job.experiment.id })}>{job.experiment.name}</a>
            </td>
          )}
          <td>{job.entrypoint.name}</td>
          <td>{job.queue.name}</td>
          <td class="wrap">{job.description ?? ""}</td>
          <td title={formatTime(job.createdOn)}>{formatAgo(job.createdOn, now)}</td>
          <td title={formatTime(job.lastModifiedOn)}>{formatAgo(job.lastModifiedOn, now)}</td>
        </tr>
        )
      )}
    </ListTable>
  )
}

type ResourceColumn = "id" | "name" | "createdOn" | "lastModifiedOn" | "description"

/** The experiments: live, searchable, sortable, paged; each opens its jobs. */
export const ExperimentList = () => {
  const { query, index, setIndex, header, onSearch } = useListQuery<ResourceColumn>()
  const { data, error } = usePoll(() => call((c) => c.experiments.list({ query })), [JSON.stringify(query)])
  const now = Date.now()
  const head = (
    <>
      {header("id", "Id")}
      {header("name", "Name")}
      {header("description", "Description")}
      <th>Entrypoints</th>
      {header("lastModifiedOn", "Changed")}
    </>
  )
  return (
    <>
      <h1>Experiments</h1>
      <ListTable label="experiments" searchTestid="experiment-search" onSearch={onSearch} error={error} page={data} index={index} onIndex={setIndex} head={head}>
        {data?.data.map((e) =>
          "error" in e ? (
            <UnreadableRow item={e} columns={5} testid="experiment-row" />
          ) : (
          <tr key={e.id} data-testid="experiment-row" data-id={e.id}>
            <td>{e.id}</td>
            <td>
              <a href={routeHash({ page: "experiment", id: e.id })}>{e.name}</a>
            </td>
            <td class="wrap">{e.description ?? ""}</td>
            <td>{e.entrypoints.map((r) => r.name).join(", ")}</td>
            <td title={formatTime(e.lastModifiedOn)}>{formatAgo(e.lastModifiedOn, now)}</td>
          </tr>
          )
        )}
      </ListTable>
    </>
  )
}

/** One experiment: what it is, and its jobs. */
export const ExperimentPage = ({ id }: { readonly id: number }) => {
  const { data, error } = usePoll(() => call((c) => c.experiments.read({ params: { id } })), [id], undefined)
  return (
    <>
      <p class="crumbs">
        <a href={routeHash({ page: "experiments" })}>Experiments</a> /
      </p>
      <h1>{data?.name ?? `Experiment ${id}`}</h1>
      {error !== undefined && <p class="error" role="alert">{error}</p>}
      {data?.description && <p>{data.description}</p>}
      <JobList experimentId={id} />
    </>
  )
}

/** Every queue: its gate (open, or why not), and when that was last proven. */
export const QueueList = () => {
  const [index, setIndex] = useState(0)
  const { data, error } = usePoll(() => call((c) => c.queues.list({ query: { index, pageLength: 100, sortBy: "name" } })), [index])
  const now = Date.now()
  return (
    <section aria-label="queues">
      <h1>Queues</h1>
      {error !== undefined && <p class="error" role="alert">{error}</p>}
      <div class="table-wrap">
        <table class="list">
          <thead>
            <tr>
              <th>Queue</th>
              <th>Backend</th>
              <th>Gate</th>
              <th>Why not open</th>
              <th>Last proven</th>
            </tr>
          </thead>
          <tbody>
            {data?.data.map((q) =>
              "error" in q ? (
                <UnreadableRow item={q} columns={5} testid="queue-row" />
              ) : (
              <tr key={q.id} data-testid="queue-row" data-id={q.id} data-gate={q.gate.state}>
                <td>
                  <strong>{q.name}</strong>
                  {q.description && <div class="muted">{q.description}</div>}
                </td>
                <td>{q.backend === undefined ? <span class="muted">none</span> : `${q.backend.config.mode} · ${q.backend.config.namespace} · ${q.backend.runtime.name}`}</td>
                <td>
                  <span class={`gate gate-${q.gate.state}`}>{q.gate.state}</span>
                </td>
                <td class="wrap">{q.gate.state === "open" ? "" : (q.gate.reason ?? "")}</td>
                <td title={formatTime(q.gate.checkedOn)}>{q.gate.checkedOn === undefined ? <span class="muted">never</span> : formatAgo(q.gate.checkedOn, now)}</td>
              </tr>
              )
            )}
          </tbody>
        </table>
      </div>
      {data !== undefined && <Pager index={index} shown={data.data.length} total={data.totalNumResults} onIndex={setIndex} size={100} />}
    </section>
  )
}
