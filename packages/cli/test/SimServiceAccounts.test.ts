// The ServiceAccounts `dispatch sim serve --rbac --service-account` serves: each created with its namespace, a
// token the simulator authenticates as that account, and the kubeconfig's user and context for it.
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { parse } from "yaml"
import { Simulator, kubeconfigFor } from "@dispatch/sim"
import { serviceAccountTokens, withServiceAccountUsers } from "../src/commands/SimServiceAccounts.ts"

const accounts = [
  { namespace: "ml-team", name: "dispatch" },
  { namespace: "default", name: "reader" }
]

describe("serviceAccountTokens", () => {
  it("creates each account (and its namespace) and issues a token that authenticates as it", () => {
    const simulator = new Simulator({ rbac: {} })
    const issued = serviceAccountTokens(simulator, accounts)
    expect(Result.isSuccess(issued)).toBe(true)
    const tokens = Result.isSuccess(issued) ? issued.success : []
    expect(tokens.map((t) => t.account)).toEqual(accounts)
    expect(simulator.system.get("namespaces", undefined, "ml-team")).toBeDefined()
    for (const { account, token } of tokens) {
      expect(simulator.system.get("serviceaccounts", account.namespace, account.name)).toBeDefined()
      expect(simulator.rbac?.authenticate(token)?.name).toBe(`system:serviceaccount:${account.namespace}:${account.name}`)
    }
    // An account already there is kept, and gets a token of its own.
    const again = serviceAccountTokens(simulator, [accounts[0]!])
    expect(Result.isSuccess(again) && again.success[0]?.token !== tokens[0]?.token).toBe(true)
    return simulator.close()
  })

  it("fails naming the account when the simulator issues no tokens (RBAC off)", () => {
    const simulator = new Simulator()
    const issued = serviceAccountTokens(simulator, [accounts[0]!])
    // Without RBAC the ServiceAccount is stored (a kind every simulator serves) but no token is issued for it.
    expect(Result.isFailure(issued) ? issued.failure : []).toEqual([expect.stringMatching(/^--service-account ml-team\/dispatch: TokenRequest refused \(404\)/)])
    expect(simulator.system.get("serviceaccounts", "ml-team", "dispatch")).toBeDefined()
    return simulator.close()
  })
})

describe("withServiceAccountUsers", () => {
  it("adds a user and a context per account, on the same cluster and in its namespace; the current context stays", () => {
    const base = kubeconfigFor({ url: "http://127.0.0.1:6443" }, { namespace: "default" })
    expect(withServiceAccountUsers(base, [])).toBe(base)
    const config = parse(withServiceAccountUsers(base, [{ account: accounts[0]!, token: "t1" }]))
    expect(config["current-context"]).toBe(parse(base)["current-context"])
    expect(config.users).toContainEqual({ name: "system:serviceaccount:ml-team:dispatch", user: { token: "t1" } })
    expect(config.contexts).toContainEqual({
      name: "system:serviceaccount:ml-team:dispatch",
      context: { cluster: parse(base).clusters[0].name, user: "system:serviceaccount:ml-team:dispatch", namespace: "ml-team" }
    })
    expect(config.users).toHaveLength(2)
  })
})
