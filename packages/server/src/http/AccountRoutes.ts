// Dioptra's users, auth and groups endpoints: sign-up (with --signup), cookie login sessions, integer group ids.
import { checkSearchFields, parseSearch, searchMatches } from "@dispatch/jobs"
import { Option, Result } from "effect"
import type { GroupResponse } from "../wire/AccountSchemas.ts"
import { AuthGroup, GroupsGroup, UsersGroup, apiPrefix } from "./Api.ts"
import type { Principal } from "./Auth.ts"
import type { Sql } from "../store/Database.ts"
import { isTrue, searchTerms } from "../wire/DioptraPaging.ts"
import { groupIdOf, namesOtherGroup } from "../store/Groups.ts"
import { listPage } from "../wire/ListPage.ts"
import { hashPassword, passwordMatches } from "./Password.ts"
import { refMaker } from "../wire/RefTypes.ts"
import { promiseRoute as route, type RequestContext } from "./Route.ts"
import { accounts, userSearchFields } from "../store/Accounts.ts"
import { onStore } from "../store/DatabaseBridge.ts"
import {
  AlreadyExists,
  FieldsDiffer,
  LoginFailed,
  refusal,
  ResourceNotFound,
  SignupDisabled,
  TooManyLoginAttempts,
  Unauthenticated
} from "../wire/ServiceProblem.ts"
import {
  clearedCookieHeader,
  clearFailures,
  closeSession,
  countFailure,
  failureWindowSeconds,
  maxLoginFailures,
  newSessionToken,
  openSession,
  recentFailures,
  sessionCookieHeader
} from "./Sessions.ts"

type Context = Pick<RequestContext<unknown, unknown, unknown>, "link">

// Only a user who logged in is a member: a bearer token stands for its group, not for a user of it.
const groupOf = async (sql: Sql, context: Context, id: number): Promise<GroupResponse | undefined> => {
  const group = Option.getOrUndefined(await onStore(sql, accounts, (store) => store.group(id)))
  if (group === undefined) return undefined
  const refs = refMaker(context.link)
  const users = await onStore(sql, accounts, (store) => store.members(group.name))
  const groupRef = refs.group(group.id, group.name)
  return {
    id: group.id,
    name: group.name,
    members: users.map((u) => ({
      user: refs.user(u.id, u.username),
      group: groupRef,
      permissions: { read: true, write: true, share_read: false, share_write: false, owner: false, admin: false }
    })),
    createdOn: group.created_on,
    lastModifiedOn: group.created_on
  }
}

const loginKeys = (username: string, client: string) => [`user:${username}`, `address:${client}`] as const

/** The caller's own group, as a one-item list or a read by id; any other group is not found. */
const visibleGroup = (principal: Principal, id: number) => (principal.groupId === id ? id : undefined)

/** Sign-up, the current user, login and logout, and groups by integer id. */
export const accountRoutes = [
  route(UsersGroup, "create", {
    open: true,
    handle: ({ body, db, now, signup, signupGroup }) => {
      if (!signup) return Promise.resolve(Result.fail(refusal(new SignupDisabled({}))))
      if (body.password !== body.confirmPassword) return Promise.resolve(Result.fail(refusal(new FieldsDiffer({ field: "confirmPassword", other: "password" }))))
      return (async () => {
        const hash = await hashPassword(body.password)
        await groupIdOf(db, signupGroup)
        return db.transaction(async (sql) => {
          if (await onStore(sql, accounts, (store) => store.usernameTaken(body.username))) {
            return Result.fail(refusal(new AlreadyExists({ resource: "user", field: "username", value: body.username })))
          }
          const at = now()
          const row = await onStore(sql, accounts, (store) =>
            store.createUser({ username: body.username, email: body.email, passwordHash: hash, group: signupGroup, at })
          )
          return Result.succeed({ id: row.id, username: body.username, email: body.email })
        })
      })()
    }
  }),
  route(UsersGroup, "current", {
    handle: async ({ principal, db, link }) => {
      const refs = refMaker(link)
      const groups = [refs.group(principal.groupId, principal.group)]
      if (principal.userId === undefined) return Result.succeed({ username: principal.name, groups, via: "token" as const })
      const userId = principal.userId
      const user = Option.getOrUndefined(await onStore(db, accounts, (store) => store.currentUser(userId)))
      if (user === undefined) return Result.fail(refusal(new Unauthenticated({ reason: "the logged-in user no longer exists" })))
      return Result.succeed({
        id: user.id,
        username: user.username,
        email: user.email,
        groups,
        createdOn: user.created_on,
        lastModifiedOn: user.last_modified_on,
        lastLoginOn: user.last_login_on,
        via: "session" as const
      })
    }
  }),
  route(UsersGroup, "list", {
    handle: async (context) => {
      // Only the caller's group's users are listed: upstream lists every user, but dispatch reveals nothing of
      // another group.
      const search = searchTerms(context.query.search, userSearchFields)
      if (Result.isFailure(search)) return Result.fail(refusal(search.failure))
      const terms = search.success
      const group = context.principal.group
      return Result.succeed(await listPage(context, "/users", (offset, limit) => onStore(context.db, accounts, (store) => store.users(group, terms, offset, limit))))
    }
  }),
  route(UsersGroup, "read", {
    handle: async ({ principal, params, db }) => {
      const user = Option.getOrUndefined(await onStore(db, accounts, (store) => store.userInGroup({ id: params.id, group: principal.group })))
      return user === undefined ? Result.fail(refusal(new ResourceNotFound({ resource: "user", id: String(params.id) }))) : Result.succeed(user)
    }
  }),
  route(AuthGroup, "login", {
    open: true,
    handle: async ({ body, db, now, client, setCookie }) => {
      const at = now()
      const keys = loginKeys(body.username, client)
      for (const key of keys) {
        const failures = await recentFailures(db, key, at)
        if (failures >= maxLoginFailures) {
          return Result.fail(refusal(new TooManyLoginAttempts({ subject: key.startsWith("user:") ? `user ${JSON.stringify(body.username)}` : `address ${client}`, failures, windowSeconds: failureWindowSeconds })))
        }
      }
      const user = Option.getOrUndefined(await onStore(db, accounts, (store) => store.credentials(body.username)))
      // An unknown user costs a hash too, so the answer's timing does not tell which usernames exist.
      const matches = await passwordMatches(body.password, user?.password_hash ?? (await hashPassword("", new Uint8Array(16))))
      if (user === undefined || !matches) {
        for (const key of keys) await countFailure(db, key, at)
        return Result.fail(refusal(new LoginFailed({ username: body.username })))
      }
      const token = newSessionToken()
      await db.transaction(async (sql) => {
        await openSession(sql, user.id, token, at)
        await onStore(sql, accounts, (store) => store.recordLogin(user.id, at))
        await clearFailures(sql, keys[0])
      })
      setCookie(sessionCookieHeader(token, apiPrefix))
      return Result.succeed({ username: body.username, status: "Login successful" })
    }
  }),
  route(AuthGroup, "logout", {
    handle: async ({ principal, query, db, setCookie }) => {
      if (principal.sessionToken !== undefined) await closeSession(db, principal.sessionToken, isTrue(query.everywhere))
      setCookie(clearedCookieHeader(apiPrefix))
      return Result.succeed({ username: principal.name, status: "Logout successful" })
    }
  }),
  route(GroupsGroup, "list", {
    handle: async (context) => {
      const search = context.query.search ?? ""
      const parsed = Result.flatMap(parseSearch(search), (terms) => checkSearchFields(search, terms, ["name"]))
      if (Result.isFailure(parsed)) return Result.fail(refusal(parsed.failure))
      const terms = parsed.success
      return Result.succeed(
        await listPage(context, "/groups", async (offset, limit) => {
          if (namesOtherGroup(context.query.groupId, context.principal.groupId)) return { items: [], total: 0 }
          const own = await groupOf(context.db, context, context.principal.groupId)
          const all = own === undefined || !searchMatches(terms, { name: own.name }) ? [] : [own]
          return { items: all.slice(offset, offset + limit), total: all.length }
        })
      )
    }
  }),
  route(GroupsGroup, "read", {
    handle: async (context) => {
      const id = visibleGroup(context.principal, context.params.id)
      const group = id === undefined ? undefined : await groupOf(context.db, context, id)
      return group === undefined ? Result.fail(refusal(new ResourceNotFound({ resource: "group", id: String(context.params.id) }))) : Result.succeed(group)
    }
  })
]
