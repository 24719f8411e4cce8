// A list page as a handler answers it, on the request's services given directly: which window it reads, the links
// that repeat the request's query, and a stored row that cannot be rendered or written answered as its
// UnreadableItem (and logged) rather than breaking its list.
import { Cause, Context, Effect, Exit } from "effect"
import { describe, expect, test } from "vitest"
import { pageOf, renderRows, type ListContext, type ListQuery, type RowNames } from "../src/http/ListPage.ts"
import { AnswerLimitsService, DefectLog, Links, type QueryValue } from "../src/http/RequestServices.ts"
import { defaultLimits } from "../src/wire/Limits.ts"

const link = (path: string, query: Readonly<Record<string, QueryValue>> = {}) => {
  const search = new URLSearchParams(Object.entries(query).flatMap(([k, v]): Array<[string, string]> => (typeof v === "object" ? v.map((one) => [k, one]) : [[k, String(v)]]))).toString()
  return `http://test/api/v1${path}${search === "" ? "" : `?${search}`}`
}

const names: RowNames = { resource: "thing", path: (id) => `/things/${id}` }

/** Runs `pageOf` with the services a request gives it, answering its exit and the lines it logged. */
const run = <A>(query: ListQuery, read: (offset: number, limit: number) => Effect.Effect<{ readonly items: ReadonlyArray<A>; readonly total: number }>, withNames = true) => {
  const logged: Array<string> = []
  const services = Context.make(Links, { link }).pipe(Context.add(AnswerLimitsService, defaultLimits), Context.add(DefectLog, (line: string) => void logged.push(line)))
  const effect = withNames ? pageOf(query, "/things", read, names) : pageOf(query, "/things", read)
  return { exit: Effect.runSyncExit(Effect.provideContext(effect, services)), logged }
}

const answered = <A>(exit: Exit.Exit<A, unknown>): A => {
  if (Exit.isFailure(exit)) throw new Error(`expected a page, got ${String(exit.cause)}`)
  return exit.value
}

describe("a list page", () => {
  test("reads the window its query names, 0 and 20 by default", () => {
    const windows: Array<readonly [number, number]> = []
    const read = (offset: number, limit: number) => {
      windows.push([offset, limit])
      return Effect.succeed({ items: [], total: 0 })
    }
    run({}, read)
    run({ index: 7, pageLength: 3 }, read)
    expect(windows).toEqual([
      [0, 20],
      [7, 3]
    ])
  })

  test("links to its neighbours repeating the query's other fields, leaving out those not given", () => {
    const query: ListQuery = { index: 2, pageLength: 2, search: "name:a*", sortBy: "name", status: ["queued", "failed"], groupId: undefined }
    const { exit } = run(query, () => Effect.succeed({ items: [{ id: 3 }, { id: 4 }], total: 9 }))
    const page = answered(exit)
    expect(page).toMatchObject({ index: 2, isComplete: false, totalNumResults: 9 })
    expect(page.first).toBe("http://test/api/v1/things?index=0&pageLength=2&search=name%3Aa*&sortBy=name&status=queued&status=failed")
    expect(page.prev).toBe("http://test/api/v1/things?index=0&pageLength=2&search=name%3Aa*&sortBy=name&status=queued&status=failed")
    expect(page.next).toBe("http://test/api/v1/things?index=4&pageLength=2&search=name%3Aa*&sortBy=name&status=queued&status=failed")
  })

  test("answers an item that cannot be written as JSON as its UnreadableItem, logged with the reason and how to delete it", () => {
    const circular: { id: number; self?: unknown } = { id: 5 }
    circular.self = circular
    const { exit, logged } = run({}, () => Effect.succeed({ items: [{ id: 4 }, circular, { id: 6 }], total: 3 }))
    expect(answered(exit).data).toEqual([{ id: 4 }, { id: 5, error: "UnreadableRow", message: "thing 5 is stored in a form the service cannot render; delete it and create it again", url: "http://test/api/v1/things/5" }, { id: 6 }])
    expect(logged).toHaveLength(1)
    expect(logged[0]).toMatch(/^thing 5 is stored in a form the service cannot render \(.*circular.*\); it is listed as UnreadableRow: delete it \(DELETE \/things\/5\)$/is)
  })

  test("an unwritable item without a numeric id, or a list that names no rows, is the list's defect", () => {
    const unwritable = (id: unknown) => {
      const item: Record<string, unknown> = { id }
      item["self"] = item
      return item
    }
    // The defect is JSON's own failure, as it was thrown.
    const defect = (exit: Exit.Exit<unknown, unknown>) => (Exit.isFailure(exit) ? String(Cause.squash(exit.cause)) : "a page")
    for (const item of [unwritable("5"), unwritable(undefined), { n: 1n }, 1n]) {
      const { exit, logged } = run({}, () => Effect.succeed({ items: [item], total: 1 }))
      expect(defect(exit)).toMatch(/circular|BigInt/)
      expect(logged).toEqual([])
    }
    const unnamed = run({}, () => Effect.succeed({ items: [unwritable(5)], total: 1 }), false)
    expect(defect(unnamed.exit)).toMatch(/circular/)
    expect(unnamed.logged).toEqual([])
  })
})

describe("rendering stored rows", () => {
  const context = (logged: Array<string>): ListContext => ({ query: {}, link, limits: defaultLimits, log: (line) => void logged.push(line) })

  test("a row whose rendering throws is its UnreadableItem, logged with the thrown error's message or the thrown value", () => {
    const logged: Array<string> = []
    const rows = [1, 2, 3, 4]
    const items = renderRows(context(logged), names, rows, (row) => row * 10, (row) => {
      if (row === 2) throw new Error("no such status")
      if (row === 3) throw "a bare string"
      return { id: row * 10, ok: true }
    })
    expect(items).toEqual([
      { id: 10, ok: true },
      { id: 20, error: "UnreadableRow", message: "thing 20 is stored in a form the service cannot render; delete it and create it again", url: "http://test/api/v1/things/20" },
      { id: 30, error: "UnreadableRow", message: "thing 30 is stored in a form the service cannot render; delete it and create it again", url: "http://test/api/v1/things/30" },
      { id: 40, ok: true }
    ])
    expect(logged).toEqual([
      "thing 20 is stored in a form the service cannot render (no such status); it is listed as UnreadableRow: delete it (DELETE /things/20)",
      "thing 30 is stored in a form the service cannot render (a bare string); it is listed as UnreadableRow: delete it (DELETE /things/30)"
    ])
  })
})
