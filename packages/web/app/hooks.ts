// Live data without reloading: a call repeated every few seconds while the tab is visible, never two at once.
import { useCallback, useEffect, useRef, useState } from "preact/hooks"

/** How often lists and job pages ask again, in milliseconds. */
export const pollMs = 2000

/** The latest answer of `load`, asked now and again every `everyMs` (and whenever `deps` change); its error, if the last call failed. */
export const usePoll = <A>(load: () => Promise<A>, deps: ReadonlyArray<unknown>, everyMs: number | undefined = pollMs) => {
  const [data, setData] = useState<A | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  const generation = useRef(0)
  const busy = useRef(false)
  const run = useCallback(async () => {
    const mine = generation.current
    busy.current = true
    try {
      const value = await load()
      if (mine === generation.current) {
        setData(value)
        setError(undefined)
      }
    } catch (cause) {
      if (mine === generation.current) setError(cause instanceof Error ? cause.message : String(cause))
    } finally {
      busy.current = false
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps)
  useEffect(() => {
    generation.current++
    void run()
    if (everyMs === undefined) return undefined
    const timer = setInterval(() => {
      if (!busy.current && document.visibilityState === "visible") void run()
    }, everyMs)
    return () => clearInterval(timer)
  }, [run, everyMs])
  return { data, error, reload: run }
}
