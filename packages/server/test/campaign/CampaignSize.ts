// How big a campaign is and what it stores in: CAMPAIGN_RUNS schedules when set (`pnpm test:stress` sets 1,000),
// else the CI size; PostgreSQL when CAMPAIGN_DATABASE is `postgres` (as the stress run sets it), else PGlite.

/** Schedules per CI run. */
export const ciRuns = 500

/** The number of schedules to run; a CAMPAIGN_RUNS that is not a positive integer is refused, not ignored. */
export const campaignRuns = (env: NodeJS.ProcessEnv = process.env): number => {
  const given = env["CAMPAIGN_RUNS"]
  if (given === undefined || given === "") return ciRuns
  const runs = Number(given)
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`CAMPAIGN_RUNS must be a positive integer, got ${JSON.stringify(given)}`)
  return runs
}

/** The database the campaign's service stores in; anything but `pglite` or `postgres` is refused. */
export const campaignDatabase = (env: NodeJS.ProcessEnv = process.env): "pglite" | "postgres" => {
  const given = env["CAMPAIGN_DATABASE"]
  if (given === undefined || given === "" || given === "pglite") return "pglite"
  if (given === "postgres") return "postgres"
  throw new Error(`CAMPAIGN_DATABASE must be pglite or postgres, got ${JSON.stringify(given)}`)
}
