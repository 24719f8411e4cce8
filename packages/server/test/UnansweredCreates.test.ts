// The memory of unanswered creates in the database: what one process remembers every process sees, the latest time
// wins, forgetting removes it, and entries a day older than a new one are dropped.
import { InFlight } from "@dispatch/effects"
import { Effect, Layer, Option } from "effect"
import { expect, test } from "vitest"
import { unansweredCreates } from "../src/store/UnansweredCreates.ts"
import { useDispatchWorld } from "./DispatchWorld.ts"

const w = useDispatchWorld("UnansweredCreates")
const day = 86_400_000

const on = <A>(program: Effect.Effect<A, never, InFlight>) => Effect.runPromise(Effect.provide(program, Layer.provide(unansweredCreates, w.db().layer)))
const stored = async () => w.db().query<{ key: string; atMs: number }>(`select key, at_ms::float8 as "atMs" from unanswered_creates order by key`)

test("a remembered create is seen by another process's memory, keeps its latest time, and is forgotten", async () => {
  await on(Effect.flatMap(Effect.service(InFlight), (m) => m.remember("a", 1000)))
  expect(await on(Effect.flatMap(Effect.service(InFlight), (m) => m.lookup("a")))).toEqual(Option.some(1000))
  expect(await on(Effect.flatMap(Effect.service(InFlight), (m) => m.lookup("b")))).toEqual(Option.none())
  await on(Effect.flatMap(Effect.service(InFlight), (m) => m.remember("a", 500)))
  expect(await stored()).toEqual([{ key: "a", atMs: 1000 }])
  await on(Effect.flatMap(Effect.service(InFlight), (m) => m.remember("a", 2000)))
  expect(await stored()).toEqual([{ key: "a", atMs: 2000 }])
  await on(Effect.flatMap(Effect.service(InFlight), (m) => m.remember("b", 3000)))
  await on(Effect.flatMap(Effect.service(InFlight), (m) => m.forget("a")))
  expect(await stored()).toEqual([{ key: "b", atMs: 3000 }])
})

test("a new entry drops those more than a day older, and keeps one exactly a day older", async () => {
  await on(Effect.flatMap(Effect.service(InFlight), (m) => m.remember("old", 1000)))
  await on(Effect.flatMap(Effect.service(InFlight), (m) => m.remember("edge", 1001)))
  await on(Effect.flatMap(Effect.service(InFlight), (m) => m.remember("new", 1001 + day)))
  expect((await stored()).map((r) => r.key)).toEqual(["edge", "new"])
})
