// Groups are named in every resource's grp column; here each name gets the integer id Dioptra's clients use.
import type { Sql } from "./Database.ts"
import { accounts } from "./Accounts.ts"
import { onStore } from "./DatabaseBridge.ts"

const known = new WeakMap<object, Map<string, number>>()

/** The id of the group named `name`, registering it on first use (a token's group needs no other setup). Ids are
 * remembered per database, so a request costs a query only the first time its group is seen. */
export const groupIdOf = async (db: Sql, name: string): Promise<number> => {
  const cache = known.get(db) ?? new Map<string, number>()
  known.set(db, cache)
  const cached = cache.get(name)
  if (cached !== undefined) return cached
  const id = await onStore(db, accounts, (store) => store.registerGroup(name))
  cache.set(name, id)
  return id
}

/** Whether a list's `groupId` names a group other than the caller's: such a list answers nothing, as Dioptra
 * answers a group the caller is not a member of. */
export const namesOtherGroup = (groupId: number | undefined, callerGroupId: number): boolean => groupId !== undefined && groupId !== callerGroupId
