// The flags that name a job (--job and --submission) as a cluster command reads them.
import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { parseClusterCommand, jobOptions } from "../src/ClusterArgs.ts"
import { Commands } from "../src/Commands.ts"
import { lineOf } from "./CommandLine.ts"

describe("job options", () => {
  test.prop([fc.stringMatching(/^[0-9A-Z]{1,26}$/), fc.integer({ min: 0, max: 999_999_999 })])("read back --job and --submission", async (job, submission) => {
    expect(parseClusterCommand(Commands.find, (await lineOf(["find", "--job", job, "--submission", String(submission)])).list, jobOptions)).toEqual({
      args: { target: { _tag: "Kube" }, output: "text", job, submission }
    })
  })

  it("refuses a submission that is not a whole number", async () => {
    expect(parseClusterCommand(Commands.find, (await lineOf(["find", "--job", "J", "--submission", "1.5"])).list, jobOptions)).toEqual({ _tag: "UsageError", problems: ['--submission "1.5" is not a whole number'] })
  })
})
