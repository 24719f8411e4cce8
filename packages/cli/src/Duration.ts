// Durations as kubectl's flags spell them (`--timeout 30s`): the job service's settings read them too. Pure.
export { parseDuration } from "@dispatch/server/config"
