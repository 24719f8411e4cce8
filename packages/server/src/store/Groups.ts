// Groups are named in every resource's grp column; here each name gets the integer id Dioptra's clients use.
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { accounts } from "./Accounts.ts"

const known = new WeakMap<SqlClient.SqlClient, Map<string, number>>()

/** The id of the group named `name`, registering it on first use (a token's group needs no other setup). Ids are
 * remembered per database client, so a request costs a query only the first time its group is seen. */
export const groupIdOf = (name: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const cache = known.get(sql) ?? new Map<string, number>()
    known.set(sql, cache)
    const cached = cache.get(name)
    if (cached !== undefined) return cached
    const id = yield* Effect.flatMap(accounts, (store) => store.registerGroup(name))
    cache.set(name, id)
    return id
  })

/** Whether a list's `groupId` names a group other than the caller's: such a list answers nothing, as Dioptra
 * answers a group the caller is not a member of. */
export const namesOtherGroup = (groupId: number | undefined, callerGroupId: number): boolean => groupId !== undefined && groupId !== callerGroupId
