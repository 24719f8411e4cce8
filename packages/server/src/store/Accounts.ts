// Users and groups: the accounts a login names, and the group every resource belongs to.
import type { SearchTerm } from "@dispatch/jobs"
import { Effect, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { searchCondition } from "./SearchCondition.ts"

/** A group as stored: its integer id, name and when it was first seen. */
export const GroupRow = Schema.Struct({ id: Schema.Number, name: Schema.String, created_on: Schema.String })

/** A user as its group's member list shows it. */
export const MemberRow = Schema.Struct({ id: Schema.Number, username: Schema.String })

/** A user as the user list and a read by id show it. */
export const UserRow = Schema.Struct({ id: Schema.Number, username: Schema.String, email: Schema.String })

/** The logged-in user as `users/current` shows it. */
export const CurrentUserRow = Schema.Struct({
  id: Schema.Number,
  username: Schema.String,
  email: Schema.String,
  created_on: Schema.String,
  last_modified_on: Schema.String,
  last_login_on: Schema.NullOr(Schema.String)
})

/** What a login checks: the user's id and stored password hash. */
export const CredentialsRow = Schema.Struct({ id: Schema.Number, password_hash: Schema.String })

const Count = Schema.Struct({ n: Schema.Number })
const Id = Schema.Struct({ id: Schema.Number })

/** A new user: the password already hashed, stamped `at`. */
export interface NewUser {
  readonly username: string
  readonly email: string
  readonly passwordHash: string
  readonly group: string
  readonly at: string
}

// The fields upstream's users.get searches, as SQL.
const userSearchColumns = { username: "username", email: "email" }

/** The fields the user list can be searched by. */
export const userSearchFields = Object.keys(userSearchColumns)

/** The accounts' repository over the SqlClient in context. */
export const accounts = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const groupId = SqlSchema.findOneOption({ Request: Schema.String, Result: Id, execute: (name) => sql`select id from groups where name = ${name}` })
  const usersWhere = (group: string, terms: ReadonlyArray<SearchTerm>) => sql`grp = ${group} and ${searchCondition(sql, terms, userSearchColumns)}`
  return {
    /** The id of the group named `name`, registering it on first use. */
    registerGroup: (name: string) =>
      Effect.andThen(
        sql`insert into groups (name) values (${name}) on conflict (name) do nothing`,
        Effect.flatMap(groupId(name), Option.match({ onNone: () => Effect.die(new Error(`group ${name} vanished as it was registered`)), onSome: (row) => Effect.succeed(row.id) }))
      ),
    group: SqlSchema.findOneOption({ Request: Schema.Number, Result: GroupRow, execute: (id) => sql`select id, name, created_on from groups where id = ${id}` }),
    members: SqlSchema.findAll({ Request: Schema.String, Result: MemberRow, execute: (group) => sql`select id, username from users where grp = ${group} order by id` }),
    usernameTaken: (username: string) => Effect.map(sql`select 1 from users where username = ${username}`, (rows) => rows.length > 0),
    createUser: SqlSchema.findOne({
      Request: Schema.Struct({ username: Schema.String, email: Schema.String, passwordHash: Schema.String, group: Schema.String, at: Schema.String }),
      Result: Id,
      execute: (user: NewUser) =>
        sql`insert into users (username, email, password_hash, grp, created_on, last_modified_on)
            values (${user.username}, ${user.email}, ${user.passwordHash}, ${user.group}, ${user.at}, ${user.at}) returning id`
    }),
    currentUser: SqlSchema.findOneOption({
      Request: Schema.Number,
      Result: CurrentUserRow,
      execute: (id) => sql`select id, username, email, created_on, last_modified_on, last_login_on from users where id = ${id}`
    }),
    /** One page of a group's users matching the search, and how many match. */
    users: (group: string, terms: ReadonlyArray<SearchTerm>, offset: number, limit: number) =>
      Effect.all({
        items: Effect.flatMap(sql`select id, username, email from users where ${usersWhere(group, terms)} order by id limit ${limit} offset ${offset}`, Schema.decodeUnknownEffect(Schema.Array(UserRow))),
        total: Effect.map(
          Effect.flatMap(sql`select count(*)::int as n from users where ${usersWhere(group, terms)}`, Schema.decodeUnknownEffect(Schema.Array(Count))),
          (rows) => rows[0]?.n ?? 0
        )
      }),
    userInGroup: SqlSchema.findOneOption({
      Request: Schema.Struct({ id: Schema.Number, group: Schema.String }),
      Result: UserRow,
      execute: ({ id, group }) => sql`select id, username, email from users where id = ${id} and grp = ${group}`
    }),
    credentials: SqlSchema.findOneOption({ Request: Schema.String, Result: CredentialsRow, execute: (username) => sql`select id, password_hash from users where username = ${username}` }),
    recordLogin: (id: number, at: string) => Effect.asVoid(sql`update users set last_login_on = ${at} where id = ${id}`)
  }
})

/** The accounts' repository. */
export type Accounts = Effect.Success<typeof accounts>
