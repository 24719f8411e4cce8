import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { readmeBlocks } from "./ReadmeBlocks.ts"

const block = fc.record({
  name: fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/),
  background: fc.boolean(),
  lang: fc.constantFrom("sh", "ts", ""),
  body: fc.array(fc.stringMatching(/^[a-z0-9 ./-]{0,30}$/), { minLength: 1, maxLength: 4 }).map((ls) => ls.join("\n"))
})

describe("readmeBlocks", () => {
  test.prop([fc.uniqueArray(block, { selector: (b) => b.name, maxLength: 5 }), fc.array(fc.stringMatching(/^[A-Za-z .]{0,40}$/), { maxLength: 3 })])(
    "finds every marked block, in order, whatever prose surrounds it",
    (blocks, prose) => {
      const markdown = blocks
        .flatMap((b) => [...prose, `<!-- readme-test: ${b.name}${b.background ? " background" : ""} -->`, "```" + b.lang, b.body, "```", ...prose])
        .join("\n")
      expect(readmeBlocks(markdown)).toEqual({ blocks })
    }
  )

  it("ignores unmarked blocks and names a marker without a block or used twice", () => {
    expect(readmeBlocks("```sh\nls\n```\n")).toEqual({ blocks: [] })
    expect(readmeBlocks("<!-- readme-test: a -->\ntext\n")).toEqual({ problems: ['line 1: marker "a" is not followed by a fenced block'] })
    expect(readmeBlocks("<!-- readme-test: a -->\n```\nx\n```\n<!-- readme-test: a -->\n```\ny\n```")).toEqual({ problems: ['marker "a" is used more than once'] })
  })
})
