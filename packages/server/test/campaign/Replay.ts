// Replays one schedule as a test: a failing seed's shrunk schedule, pasted as JSON, becomes a regression test.
import { afterAll, beforeAll, expect, test } from "vitest"
import { openCampaign, type Campaign } from "./CampaignWorld.ts"
import { replayInstructions } from "./Report.ts"
import type { Schedule } from "./Schedule.ts"

/** Runs `schedule` `times` times (timing differs between runs; the faults, actions and kills do not) and fails
 * on any violation, naming it. */
export const replaySchedule = async (campaign: Campaign, schedule: Schedule, times = 3): Promise<void> => {
  for (let i = 0; i < times; i++) {
    const result = await campaign.run(schedule)
    expect(result.violations, replayInstructions(schedule, result.violations)).toEqual([])
  }
}

let shared: Promise<Campaign> | undefined
let users = 0

/** Registers a test that replays `schedule` on a campaign world shared by the file's replays. */
export const replay = (name: string, schedule: Schedule, times = 3): void => {
  beforeAll(() => {
    users++
    shared ??= openCampaign()
  })
  afterAll(async () => {
    if (--users === 0 && shared !== undefined) {
      const closing = shared
      shared = undefined
      await (await closing).close()
    }
  })
  test(name, { timeout: 120_000 * times }, async () => {
    if (shared === undefined) throw new Error("the campaign world did not open")
    await replaySchedule(await shared, schedule, times)
  })
}
