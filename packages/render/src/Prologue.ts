import { DispatchEnv } from "./Names.ts"

// The script never mentions user text: the command arrives as positional parameters and is run with
// "$@", and the directory arrives in an environment variable, so nothing is split, globbed or
// interpolated. It sets no variable of its own: any name it chose could be one of the job's (only
// DISPATCH_ keys are closed to jobs, and those the program must see as dispatch set them). A relative
// directory gets a "./" so that CDPATH cannot redirect it and a name like "-P" is not an option.
// `exec` makes the program replace the shell, so it is the container's process and receives SIGTERM.

/** The exit status when DISPATCH_K8S_WORKDIR cannot be entered. */
export const WORKDIR_MISSING_EXIT = 125

/** The name the prologue runs under (its `$0`). */
export const PROLOGUE_NAME = "dispatch-prologue"

// The workdir variable as the script reads it (a DISPATCH_ name, so never one of the job's).
const workDir = `$${DispatchEnv.workDir}`

/** The POSIX sh prologue: enter DISPATCH_K8S_WORKDIR when set (exit 125 if it cannot), then exec the command. */
export const PROLOGUE = [
  `if [ -n "\${${DispatchEnv.workDir}:-}" ]; then`,
  `  case "${workDir}" in`,
  `    /*) cd "${workDir}" ;;`,
  `    *) cd "./${workDir}" ;;`,
  `  esac 2>/dev/null || { printf '%s: cannot enter workdir %s\\n' "$0" "${workDir}" >&2; exit ${WORKDIR_MISSING_EXIT}; }`,
  `fi`,
  `exec "$@"`
].join("\n")

/** The trainer command: `/bin/sh -c <prologue> dispatch-prologue <command...>`. */
export const prologueCommand = (command: ReadonlyArray<string>): Array<string> => ["/bin/sh", "-c", PROLOGUE, PROLOGUE_NAME, ...command]
