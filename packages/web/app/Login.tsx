// Signing in as the API does: a user's session (the service sets a cookie), or a bearer token pasted once.
import { useState } from "preact/hooks"
import { call, storeToken } from "./api.ts"

/** The login page: user and password, or a token; `done` is called once the service knows the caller. */
export const Login = ({ done }: { readonly done: () => void }) => {
  const [username, setUsername] = useState("")
  const [password, setPassword] = useState("")
  const [token, setToken] = useState("")
  const [error, setError] = useState<string | undefined>(undefined)
  const [busy, setBusy] = useState(false)
  const attempt = async (f: () => Promise<unknown>) => {
    setBusy(true)
    setError(undefined)
    try {
      await f()
      done()
    } catch (cause) {
      setError(cause instanceof Error ? cause.message : String(cause))
    } finally {
      setBusy(false)
    }
  }
  const login = (e: Event) => {
    e.preventDefault()
    void attempt(async () => {
      storeToken(undefined)
      await call((c) => c.auth.login({ payload: { username, password } }))
    })
  }
  const useToken = (e: Event) => {
    e.preventDefault()
    void attempt(async () => {
      storeToken(token.trim())
      try {
        await call((c) => c.users.current())
      } catch (cause) {
        storeToken(undefined)
        throw cause
      }
    })
  }
  return (
    <section class="login" aria-label="sign in">
      <h1>Sign in to dispatch</h1>
      {error !== undefined && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <form onSubmit={login}>
        <h2>With a user</h2>
        <label>
          User
          <input data-testid="login-username" name="username" autocomplete="username" required value={username} onInput={(e) => setUsername(e.currentTarget.value)} />
        </label>
        <label>
          Password
          <input data-testid="login-password" name="password" type="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        </label>
        <button type="submit" data-testid="login-submit" disabled={busy}>
          Log in
        </button>
      </form>
      <form onSubmit={useToken}>
        <h2>With a token</h2>
        <label>
          Bearer token <span class="muted">(kept in this tab only)</span>
          <input data-testid="token-input" name="token" type="password" autocomplete="off" required value={token} onInput={(e) => setToken(e.currentTarget.value)} />
        </label>
        <button type="submit" data-testid="token-submit" disabled={busy}>
          Use token
        </button>
      </form>
    </section>
  )
}
