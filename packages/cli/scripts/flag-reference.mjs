// Writes docs/cli.md's flag reference from the commands' declarations, and docs/jobs.md's table of
// `dispatch serve`'s settings from theirs (run `npx tsc -b` first).
import { readFileSync, writeFileSync } from "node:fs"
import { allCommands } from "../dist/Commands.js"
import { flagReference, withReference } from "../dist/FlagReference.js"
import { ServeSettings, settingsTable, withSettingsTable } from "../dist/ServeSettings.js"

const rewrite = (name, replace) => {
  const file = new URL(`../../../docs/${name}`, import.meta.url)
  const written = replace(readFileSync(file, "utf8"))
  if (written === undefined) throw new Error(`docs/${name} has no generated part to replace: add its opening and closing lines`)
  writeFileSync(file, written)
}

rewrite("cli.md", (document) => withReference(document, flagReference(allCommands)))
rewrite("jobs.md", (document) => withSettingsTable(document, settingsTable(ServeSettings)))
