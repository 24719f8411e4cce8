// The dispatch web page: a hash-routed Preact app over the typed client, served by `dispatch serve` at `/`.
import { render } from "preact"
import { lazy, Suspense } from "preact/compat"
import { useEffect, useState } from "preact/hooks"
import { call, storedToken, storeToken, whenUnauthenticated } from "./api.ts"
import { ExperimentList, ExperimentPage, JobList, QueueList } from "./Lists.tsx"
import { Login } from "./Login.tsx"
import { parseRoute, routeHash, type Route } from "./route.ts"
import "./style.css"

// The job page carries the charts (uPlot): loaded when first opened, so the lists load less.
const JobPage = lazy(() => import("./JobPage.tsx").then((m) => m.JobPage))

const useRoute = (): Route => {
  const [route, setRoute] = useState(() => parseRoute(location.hash))
  useEffect(() => {
    const changed = () => setRoute(parseRoute(location.hash))
    addEventListener("hashchange", changed)
    return () => removeEventListener("hashchange", changed)
  }, [])
  return route
}

const go = (route: Route) => {
  location.hash = routeHash(route)
}

const App = () => {
  const route = useRoute()
  const [who, setWho] = useState<string | undefined>(undefined)
  const [returnTo, setReturnTo] = useState<Route>({ page: "experiments" })
  const learnWho = () =>
    call((c) => c.users.current()).then(
      (user) => setWho(user.username),
      () => setWho(undefined)
    )
  useEffect(() => {
    whenUnauthenticated(() => {
      setWho(undefined)
      const here = parseRoute(location.hash)
      if (here.page !== "login") {
        setReturnTo(here)
        go({ page: "login" })
      }
    })
    void learnWho()
  }, [])
  useEffect(() => {
    document.title = `${route.page === "job" ? `Job ${route.id}` : route.page === "experiment" ? `Experiment ${route.id}` : route.page} · dispatch`
    document.getElementById("main")?.focus({ preventScroll: true })
  }, [route])
  const logout = async () => {
    if (storedToken() !== undefined) storeToken(undefined)
    else await call((c) => c.auth.logout({ query: {} })).catch(() => undefined)
    setWho(undefined)
    setReturnTo({ page: "experiments" })
    go({ page: "login" })
  }
  const link = (page: "experiments" | "jobs" | "queues", label: string) => (
    <a href={routeHash({ page })} aria-current={route.page === page || (page === "experiments" && route.page === "experiment") ? "page" : undefined}>
      {label}
    </a>
  )
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById("main")?.focus())}>
        Skip to content
      </a>
      <header>
        <a class="brand" href={routeHash({ page: "experiments" })}>
          dispatch
        </a>
        <nav aria-label="main">
          {link("experiments", "Experiments")}
          {link("jobs", "Jobs")}
          {link("queues", "Queues")}
        </nav>
        <span class="who">
          {who !== undefined && <span class="muted">{who}</span>}
          {route.page !== "login" && (
            <button type="button" data-testid="logout" onClick={() => void logout()}>
              Log out
            </button>
          )}
        </span>
      </header>
      <main id="main" tabIndex={-1}>
        {route.page === "login" ? (
          <Login done={() => (void learnWho(), go(returnTo.page === "login" ? { page: "experiments" } : returnTo), setReturnTo({ page: "experiments" }))} />
        ) : route.page === "experiments" ? (
          <ExperimentList />
        ) : route.page === "experiment" ? (
          <ExperimentPage id={route.id} />
        ) : route.page === "jobs" ? (
          <>
            <h1>Jobs</h1>
            <JobList />
          </>
        ) : route.page === "job" ? (
          <Suspense fallback={<p class="muted">Loading…</p>}>
            <JobPage id={route.id} key={route.id} />
          </Suspense>
        ) : route.page === "queues" ? (
          <QueueList />
        ) : (
          <p>
            No page at {route.hash}. <a href={routeHash({ page: "experiments" })}>Experiments</a>
          </p>
        )}
      </main>
    </>
  )
}

render(<App />, document.getElementById("app") as HTMLElement)
