import { describe, expect, test } from "vitest"
import { newJob } from "./Fixtures.ts"
import { backends, useService } from "./Service.ts"

// Dioptra's clients name the group they list (`groupId`); a group that is not the caller's lists nothing, on every
// list that takes it: the resources, the jobs (all, or an experiment's) and the groups themselves.
describe.each(backends)("groupId on lists on %s", (backend) => {
  const service = useService(backend)

  test("the caller's own groupId lists its jobs and group; another group's lists none", async () => {
    const { alice } = service()
    const { world, job } = await newJob(alice, "group-lists")
    const me = await alice("GET", "/groups")
    expect(me.status).toBe(200)
    const own = me.body.data[0].id as number
    const other = own + 998
    const lists = ["/jobs", `/experiments/${world.experiment}/jobs`, "/groups", "/queues", "/experiments", "/entrypoints"]
    for (const path of lists) {
      const mine = await alice("GET", `${path}?groupId=${own}`)
      expect(mine.status, path).toBe(200)
      expect(mine.body.totalNumResults, path).toBeGreaterThan(0)
      const theirs = await alice("GET", `${path}?groupId=${other}`)
      expect(theirs.status, path).toBe(200)
      expect(theirs.body, path).toMatchObject({ index: 0, isComplete: true, totalNumResults: 0, data: [] })
    }
    expect((await alice("GET", `/jobs?groupId=${own}`)).body.data.map((j: { id: number }) => j.id)).toContain(job.id)
    expect((await alice("GET", `/groups?groupId=${own}`)).body.data).toEqual([expect.objectContaining({ id: own })])
  })

  test("a search is still checked when groupId names another group", async () => {
    const { alice } = service()
    for (const path of ["/jobs", "/queues"]) {
      const refused = await alice("GET", `${path}?groupId=999&search=${encodeURIComponent("nosuchfield:x")}`)
      expect(refused.status, path).toBe(400)
    }
  })
})
