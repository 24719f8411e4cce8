import { expect, test } from "vitest"
import { campaignDatabase, campaignRuns, ciRuns } from "./CampaignSize.ts"

test("the campaign runs CAMPAIGN_RUNS schedules, 500 when it is not set, and refuses a size that is not one", () => {
  // Printed for `pnpm test:stress`'s own test, which reads the size this run was given.
  console.log(`campaign size ${campaignRuns()} on ${campaignDatabase()}`)
  expect(campaignRuns({})).toBe(ciRuns)
  expect(campaignRuns({ CAMPAIGN_RUNS: "" })).toBe(500)
  expect(campaignRuns({ CAMPAIGN_RUNS: "5000" })).toBe(5000)
  for (const bad of ["0", "-3", "1.5", "many"]) expect(() => campaignRuns({ CAMPAIGN_RUNS: bad })).toThrow(/CAMPAIGN_RUNS must be a positive integer/)
})

test("the campaign stores in PGlite unless CAMPAIGN_DATABASE says postgres", () => {
  expect(campaignDatabase({})).toBe("pglite")
  expect(campaignDatabase({ CAMPAIGN_DATABASE: "pglite" })).toBe("pglite")
  expect(campaignDatabase({ CAMPAIGN_DATABASE: "postgres", DATABASE_URL: "" })).toBe("postgres")
  expect(() => campaignDatabase({ CAMPAIGN_DATABASE: "mysql" })).toThrow(/CAMPAIGN_DATABASE must be pglite or postgres/)
})
