// Writes docs/cli.md's flag reference from the commands' declarations (run `npx tsc -b` first).
import { readFileSync, writeFileSync } from "node:fs"
import { allCommands } from "../dist/Commands.js"
import { flagReference, withReference } from "../dist/FlagReference.js"

const file = new URL("../../../docs/cli.md", import.meta.url)
const written = withReference(readFileSync(file, "utf8"), flagReference(allCommands))
if (written === undefined) throw new Error("docs/cli.md has no flag reference to replace: add its opening and closing lines")
writeFileSync(file, written)
