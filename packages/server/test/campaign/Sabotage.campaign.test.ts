// The campaign's checks fail on a world broken on purpose after a clean schedule: what it reads from the
// simulator's store, its call log and the service's record reaches the invariants.
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { namespace, torchRuntime } from "../ClusterWorld.ts"
import { openCampaign, type Campaign, type Sabotage } from "./CampaignWorld.ts"
import { passingMark } from "./FaultInjection.ts"
import type { Schedule } from "./Schedule.ts"

const clean: Schedule = { steps: [{ kind: "create", queue: "plain" }, { kind: "pass" }], faults: [], triggers: [] }

const keyOf = async ({ db, jobs }: Sabotage): Promise<string> => {
  const [row] = await db.query<{ key: string }>(`select start_request->>'job' as key from jobs where id = $1`, [jobs[0]])
  if (row?.key === undefined) throw new Error("the schedule's job was never prepared")
  return row.key
}

const labels = (key: string) => ({ "dispatch.phpboyscout.uk/job-id": key })

describe("the campaign's checks on a world broken on purpose", () => {
  let campaign: Campaign | undefined
  beforeAll(async () => {
    campaign = await openCampaign()
  })
  afterAll(async () => {
    await campaign?.close()
  })
  const invariantsAfter = async (sabotage?: (world: Sabotage) => Promise<void>) => {
    if (campaign === undefined) throw new Error("the campaign world did not open")
    return [...new Set((await campaign.run(clean, sabotage)).violations.map((v) => v.invariant))].sort()
  }

  test("a clean schedule on a plain queue breaks nothing", { timeout: 120_000 }, async () => {
    // Without this, the sabotages below would prove nothing.
    expect(await invariantsAfter()).toEqual([])
  })

  test("a runtime copy of the job's without an owner breaks 5; a started TrainJob never read back and owning no copy breaks 4", { timeout: 120_000 }, async () => {
    const broken = await invariantsAfter(async (world) => {
      const key = await keyOf(world)
      const copy = { ...torchRuntime(), metadata: { name: "dj-sabotage-copy-s1", namespace, labels: labels(key) } }
      expect(world.sim.system.create("trainingruntimes", copy).code).toBe(201)
      const trainJob = {
        apiVersion: "trainer.kubeflow.org/v1alpha1",
        kind: "TrainJob",
        metadata: { name: "dj-sabotage-run-s1", namespace, labels: labels(key) },
        spec: { runtimeRef: { apiGroup: "trainer.kubeflow.org", kind: "TrainingRuntime", name: "dioptra-torch" }, suspend: false }
      }
      expect(world.sim.system.create("trainjobs", trainJob).code).toBe(201)
    })
    expect(broken).toEqual([4, 5])
  })

  test("a job left mid-dispatch breaks 1; a failure on a passing fault breaks 3; a history off the edges breaks 6", { timeout: 120_000 }, async () => {
    const stuck = await invariantsAfter(async ({ db, jobs }) => {
      await db.query(`update jobs set dispatch_state = 'starting' where id = $1`, [jobs[0]])
    })
    expect(stuck).toEqual([1])
    const failed = await invariantsAfter(async ({ db, jobs }) => {
      await db.query(`update jobs set status = 'failed', dispatch_reason = $2 where id = $1`, [jobs[0], `ErrRejected: 503 ${passingMark}`])
    })
    expect(failed).toContain(3)
    const offEdges = await invariantsAfter(async ({ db, jobs }) => {
      await db.query(`insert into job_status_history (job, status, changed_on) values ($1, 'started', now())`, [jobs[0]])
    })
    expect(offEdges).toEqual([6])
  })
})
