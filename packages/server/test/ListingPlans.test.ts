// The job list's statements at scale: with many jobs stored, no statement the service sends for a list page (the
// first, one 1,000 pages deep, one of an experiment) or for a search by description reads the whole jobs table
// (a Seq Scan on it). The statements are recorded as the service sends them, with their parameters, and each is
// asked for its plan (EXPLAIN, planned with those parameters) on the same database.
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { Effect } from "effect"
import { tappedDatabase, type Database as DatabaseServices } from "../src/index.ts"
import { openPglite, openPostgres, type TestDatabase as Database } from "./TestDatabase.ts"
import type { Layer } from "effect"
import { client, newJob, started, tokens, type Client } from "./Fixtures.ts"
import type { JobServer } from "../src/index.ts"
import { testPostgres, type TestPostgres } from "./TestPostgres.ts"

// Enough jobs that reading them all costs far more than an index's few pages: the planner's choice is the one it
// makes at scale.
const stored = 100_000

interface Sent {
  readonly text: string
  readonly params: ReadonlyArray<unknown>
}

// A database that records every statement sent through it, with its parameters.
const recording = (db: Database, sent: Array<Sent>): Layer.Layer<DatabaseServices> =>
  tappedDatabase(db.context, (text, params, send) => Effect.andThen(Effect.sync(() => void sent.push({ text, params })), send))

interface PlanNode {
  readonly "Node Type": string
  readonly "Relation Name"?: string
  readonly Plans?: ReadonlyArray<PlanNode>
}

const nodesOf = (node: PlanNode): ReadonlyArray<PlanNode> => [node, ...(node.Plans ?? []).flatMap(nodesOf)]

describe.each(["pglite", "postgres"] as const)("the job list's plans with %s", (backend) => {
  const sent: Array<Sent> = []
  let db: Database
  let server: JobServer
  let postgres: TestPostgres | undefined
  let alice: Client
  let experiment: number

  beforeAll(async () => {
    postgres = backend === "postgres" ? await testPostgres() : undefined
    db = postgres === undefined ? await openPglite() : await openPostgres(postgres.url)
    server = await started({ database: recording(db, sent) })
    alice = client(server.url, tokens.alice)
    const { world, job } = await newJob(alice, "plans")
    experiment = world.experiment
    // The rest are copies of the first job, each its own description, written in one statement.
    const columns = (await db.query<{ name: string }>(`select column_name as name from information_schema.columns where table_name = 'jobs' and column_name not in ('id', 'description') order by ordinal_position`)).map((c) => c.name)
    await db.query(`insert into jobs (${columns.join(", ")}, description) select ${columns.map((c) => `j.${c}`).join(", ")}, 'job ' || s from jobs j, generate_series(2, $2::int) s where j.id = $1`, [job.id, stored])
    // As autovacuum leaves a table after a bulk insert: its statistics current and its pages marked all-visible.
    await db.exec("vacuum analyze jobs")
  }, 300_000)

  afterAll(async () => {
    await server?.close()
    await db?.close()
    await postgres?.release()
  })

  // The statements a request sent that read jobs, each with the nodes of its plan.
  const plansOf = async (path: string) => {
    sent.length = 0
    const answer = await alice("GET", path)
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    const reads = sent.filter((s) => /\bfrom jobs\b/i.test(s.text))
    expect(reads.length).toBeGreaterThan(0)
    return {
      answer: answer.body,
      plans: await Promise.all(
        reads.map(async ({ text, params }) => {
          const [row] = await db.query<{ "QUERY PLAN": unknown }>(`explain (format json) ${text}`, params)
          const plan = row?.["QUERY PLAN"]
          const root = (typeof plan === "string" ? JSON.parse(plan) : plan) as ReadonlyArray<{ Plan: PlanNode }>
          return { text: text.replace(/\s+/g, " "), nodes: nodesOf(root[0]!.Plan) }
        })
      )
    }
  }

  const wholeTableReads = (plans: Awaited<ReturnType<typeof plansOf>>["plans"]) =>
    plans.filter((p) => p.nodes.some((n) => n["Node Type"] === "Seq Scan" && n["Relation Name"] === "jobs")).map((p) => p.text)

  test.each([
    ["the first page", () => "/jobs?pageLength=10"],
    ["a page 1,000 deep", () => "/jobs?pageLength=10&index=10000"],
    ["the first page of an experiment's jobs", () => `/experiments/${experiment}/jobs?pageLength=10`],
    ["a search by a description", () => `/jobs?pageLength=10&search=${encodeURIComponent('description:"job 4242"')}`],
    ["a search by a description's start", () => `/jobs?pageLength=10&search=${encodeURIComponent('description:"job 4242"*')}`]
  ])("%s reads no Seq Scan over jobs", async (_what, path) => {
    const { answer, plans } = await plansOf(path())
    expect(answer.totalNumResults).toBeGreaterThan(0)
    expect(wholeTableReads(plans)).toEqual([])
  })
})
