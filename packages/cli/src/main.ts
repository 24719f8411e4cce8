// The `dispatch` executable: runs the CLI on this process's arguments and exits with its code.
import { runCli } from "./Cli.ts"
import { processIo } from "./ProcessIo.ts"

process.exitCode = await runCli(process.argv.slice(2), processIo())
