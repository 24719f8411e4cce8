// Dioptra's users, auth and groups endpoints: sign-up (with --signup), cookie login sessions, integer group ids.
import { checkSearchFields, parseSearch, searchMatches } from "@dispatch/jobs"
import { Effect, Option, Result } from "effect"
import type { GroupResponse } from "../wire/AccountSchemas.ts"
import { AuthGroup, GroupsGroup, UsersGroup, apiPrefix } from "./Api.ts"
import type { Principal } from "./Auth.ts"
import { isTrue, searchTerms } from "../wire/DioptraPaging.ts"
import { groupIdOf, namesOtherGroup } from "../store/Groups.ts"
import { pageOf } from "./ListPage.ts"
import { hashPassword, passwordMatches } from "./Password.ts"
import { refMaker } from "../wire/RefTypes.ts"
import { route } from "./Route.ts"
import { accounts, userSearchFields } from "../store/Accounts.ts"
import { Caller, ClientAddress, Links, now, ServiceSettings, SetCookie, stored, transaction } from "./RequestServices.ts"
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

// Only a user who logged in is a member: a bearer token stands for its group, not for a user of it.
const groupOf = (id: number) =>
  Effect.gen(function* () {
    const store = yield* accounts
    const group = Option.getOrUndefined(yield* stored(store.group(id)))
    if (group === undefined) return undefined
    const refs = refMaker((yield* Links).link)
    const users = yield* stored(store.members(group.name))
    const groupRef = refs.group(group.id, group.name)
    const found: GroupResponse = {
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
    return found
  })

const loginKeys = (username: string, client: string) => [`user:${username}`, `address:${client}`] as const

/** The caller's own group, as a one-item list or a read by id; any other group is not found. */
const visibleGroup = (principal: Principal, id: number) => (principal.groupId === id ? id : undefined)

/** Sign-up, the current user, login and logout, and groups by integer id. */
export const accountRoutes = [
  route(UsersGroup, "create", {
    open: true,
    handle: ({ body }) =>
      Effect.gen(function* () {
        const { signup, signupGroup } = yield* ServiceSettings
        if (!signup) return yield* Effect.fail(refusal(new SignupDisabled({})))
        if (body.password !== body.confirmPassword) return yield* Effect.fail(refusal(new FieldsDiffer({ field: "confirmPassword", other: "password" })))
        const hash = yield* hashPassword(body.password)
        yield* stored(groupIdOf(signupGroup))
        return yield* transaction(
          Effect.gen(function* () {
            const store = yield* accounts
            if (yield* stored(store.usernameTaken(body.username))) {
              return yield* Effect.fail(refusal(new AlreadyExists({ resource: "user", field: "username", value: body.username })))
            }
            const at = yield* now
            const row = yield* stored(store.createUser({ username: body.username, email: body.email, passwordHash: hash, group: signupGroup, at }))
            return { id: row.id, username: body.username, email: body.email }
          })
        )
      })
  }),
  route(UsersGroup, "current", {
    handle: () =>
      Effect.gen(function* () {
        const principal = yield* Caller
        const refs = refMaker((yield* Links).link)
        const groups = [refs.group(principal.groupId, principal.group)]
        if (principal.userId === undefined) return { username: principal.name, groups, via: "token" as const }
        const userId = principal.userId
        const user = Option.getOrUndefined(yield* stored(Effect.flatMap(accounts, (store) => store.currentUser(userId))))
        if (user === undefined) return yield* Effect.fail(refusal(new Unauthenticated({ reason: "the logged-in user no longer exists" })))
        return {
          id: user.id,
          username: user.username,
          email: user.email,
          groups,
          createdOn: user.created_on,
          lastModifiedOn: user.last_modified_on,
          lastLoginOn: user.last_login_on,
          via: "session" as const
        }
      })
  }),
  route(UsersGroup, "list", {
    handle: ({ query }) =>
      Effect.gen(function* () {
        // Only the caller's group's users are listed: upstream lists every user, but dispatch reveals nothing of
        // another group.
        const search = searchTerms(query.search, userSearchFields)
        if (Result.isFailure(search)) return yield* Effect.fail(refusal(search.failure))
        const terms = search.success
        const group = (yield* Caller).group
        const store = yield* accounts
        return yield* pageOf(query, "/users", (offset, limit) => stored(store.users(group, terms, offset, limit)))
      })
  }),
  route(UsersGroup, "read", {
    handle: ({ params }) =>
      Effect.gen(function* () {
        const principal = yield* Caller
        const user = Option.getOrUndefined(yield* stored(Effect.flatMap(accounts, (store) => store.userInGroup({ id: params.id, group: principal.group }))))
        return user === undefined ? yield* Effect.fail(refusal(new ResourceNotFound({ resource: "user", id: String(params.id) }))) : user
      })
  }),
  route(AuthGroup, "login", {
    open: true,
    handle: ({ body }) =>
      Effect.gen(function* () {
        const at = yield* now
        const client = yield* ClientAddress
        const keys = loginKeys(body.username, client)
        for (const key of keys) {
          const failures = yield* stored(recentFailures(key, at))
          if (failures >= maxLoginFailures) {
            const subject = key.startsWith("user:") ? `user ${JSON.stringify(body.username)}` : `address ${client}`
            return yield* Effect.fail(refusal(new TooManyLoginAttempts({ subject, failures, windowSeconds: failureWindowSeconds })))
          }
        }
        const store = yield* accounts
        const user = Option.getOrUndefined(yield* stored(store.credentials(body.username)))
        // An unknown user costs a hash too, so the answer's timing does not tell which usernames exist.
        const matches = yield* passwordMatches(body.password, user?.password_hash ?? (yield* hashPassword("", new Uint8Array(16))))
        if (user === undefined || !matches) {
          for (const key of keys) yield* stored(countFailure(key, at))
          return yield* Effect.fail(refusal(new LoginFailed({ username: body.username })))
        }
        const token = newSessionToken()
        yield* transaction(
          stored(
            Effect.gen(function* () {
              yield* openSession(user.id, token, at)
              yield* Effect.flatMap(accounts, (inside) => inside.recordLogin(user.id, at))
              yield* clearFailures(keys[0])
            })
          )
        )
        const setCookie = yield* SetCookie
        setCookie(sessionCookieHeader(token, apiPrefix))
        return { username: body.username, status: "Login successful" }
      })
  }),
  route(AuthGroup, "logout", {
    handle: ({ query }) =>
      Effect.gen(function* () {
        const principal = yield* Caller
        if (principal.sessionToken !== undefined) yield* stored(closeSession(principal.sessionToken, isTrue(query.everywhere)))
        const setCookie = yield* SetCookie
        setCookie(clearedCookieHeader(apiPrefix))
        return { username: principal.name, status: "Logout successful" }
      })
  }),
  route(GroupsGroup, "list", {
    handle: ({ query }) =>
      Effect.gen(function* () {
        const search = query.search ?? ""
        const parsed = Result.flatMap(parseSearch(search), (terms) => checkSearchFields(search, terms, ["name"]))
        if (Result.isFailure(parsed)) return yield* Effect.fail(refusal(parsed.failure))
        const terms = parsed.success
        const principal = yield* Caller
        return yield* pageOf(query, "/groups", (offset, limit) =>
          Effect.gen(function* () {
            if (namesOtherGroup(query.groupId, principal.groupId)) return { items: [], total: 0 }
            const own = yield* groupOf(principal.groupId)
            const all = own === undefined || !searchMatches(terms, { name: own.name }) ? [] : [own]
            return { items: all.slice(offset, offset + limit), total: all.length }
          })
        )
      })
  }),
  route(GroupsGroup, "read", {
    handle: ({ params }) =>
      Effect.gen(function* () {
        const id = visibleGroup(yield* Caller, params.id)
        const group = id === undefined ? undefined : yield* groupOf(id)
        return group === undefined ? yield* Effect.fail(refusal(new ResourceNotFound({ resource: "group", id: String(params.id) }))) : group
      })
  })
]
