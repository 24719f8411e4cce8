// The fault campaign of the whole service: seeded schedules of job creations, user actions, cluster faults and
// service kills, each checked against what the simulator stores once it has settled. CAMPAIGN_RUNS sets how many
// schedules (500 by default; `pnpm test:stress` runs 1,000), CAMPAIGN_SEED and CAMPAIGN_PATH replay a failure.
import fc from "fast-check"
import { afterAll, beforeAll, describe, test } from "vitest"
import { openCampaign, type Campaign } from "./CampaignWorld.ts"
import { campaignRuns } from "./CampaignSize.ts"
import { costSummary, phaseSummary, replayInstructions } from "./Report.ts"
import { scheduleArbitrary } from "./Schedule.ts"

const runs = campaignRuns()
const seed = process.env["CAMPAIGN_SEED"] === undefined ? undefined : Number(process.env["CAMPAIGN_SEED"])
const path = process.env["CAMPAIGN_PATH"]

describe("the service under faults, user actions and kills", () => {
  let campaign: Campaign | undefined
  const costs: Array<number> = []
  const parts: Array<{ readonly rounds: number; readonly phases: Readonly<Record<string, number>> }> = []
  beforeAll(async () => {
    campaign = await openCampaign()
  })
  afterAll(async () => {
    console.log(`campaign on ${campaign?.database}: ${costSummary(costs)}; ${phaseSummary(parts)}`)
    await campaign?.close()
  })

  test(`${runs} schedules keep every invariant`, { timeout: 60_000 + runs * 20_000 }, async () => {
    const world = campaign
    if (world === undefined) throw new Error("the campaign world did not open")
    await fc.assert(
      fc.asyncProperty(scheduleArbitrary, async (schedule) => {
        const result = await world.run(schedule)
        costs.push(result.costMs)
        parts.push(result)
        if (result.violations.length > 0) throw new Error(replayInstructions(schedule, result.violations))
      }),
      { numRuns: runs, ...(seed === undefined ? {} : { seed }), ...(path === undefined ? {} : { path }) }
    )
  })
})
