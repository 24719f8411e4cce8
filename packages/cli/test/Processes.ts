// Process checks shared by the tests that start real processes and must see them gone.

/** Whether a process with this id exists (signal 0 only checks). */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
