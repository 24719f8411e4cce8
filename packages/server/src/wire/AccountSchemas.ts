// The bodies and answers of Dioptra's users, auth and groups endpoints.
import { ResourceId, Text, textLimits } from "@dispatch/jobs"
import { Schema } from "effect"
import { GroupRef, UserRef } from "./RefTypes.ts"

const username = Text(textLimits.name).check(Schema.isMinLength(1), Schema.isPattern(/^\S(.*\S)?$/))
const password = Text(textLimits.name).check(Schema.isMinLength(1))

/** The body of `users.create`: Dioptra's client sends the password twice. */
export const UserInput = Schema.Struct({
  username,
  email: Text(textLimits.name).check(Schema.isPattern(/^[^@\s]+@[^@\s]+$/)),
  password,
  confirmPassword: password
})
/** The body of `users.create`. */
export type UserInput = typeof UserInput.Type

/** A user as Dioptra answers one. */
export const UserResponse = Schema.Struct({ id: ResourceId, username: Schema.String, email: Schema.String })

/** The caller as `users.get_current` answers: a logged-in user, or the name a bearer token stands for (no id). */
export const CurrentUserResponse = Schema.Struct({
  id: Schema.optionalKey(ResourceId),
  username: Schema.String,
  email: Schema.optionalKey(Schema.String),
  groups: Schema.Array(GroupRef),
  createdOn: Schema.optionalKey(Schema.String),
  lastModifiedOn: Schema.optionalKey(Schema.String),
  lastLoginOn: Schema.optionalKey(Schema.NullOr(Schema.String)),
  /** dispatch's addition: `session` for a logged-in user, `token` for a bearer token. */
  via: Schema.Literals(["session", "token"])
})

/** The body of `auth.login`. */
export const LoginInput = Schema.Struct({ username: Text(textLimits.name), password: Text(textLimits.name) })

/** The answer to a login or logout. */
export const AuthResponse = Schema.Struct({ username: Schema.String, status: Schema.String })

/** A group member and what it may do. */
export const GroupMember = Schema.Struct({
  user: UserRef,
  group: GroupRef,
  permissions: Schema.Struct({ read: Schema.Boolean, write: Schema.Boolean, share_read: Schema.Boolean, share_write: Schema.Boolean, owner: Schema.Boolean, admin: Schema.Boolean })
})

/** A group as Dioptra answers one. */
export const GroupResponse = Schema.Struct({ id: ResourceId, name: Schema.String, members: Schema.Array(GroupMember), createdOn: Schema.String, lastModifiedOn: Schema.String })
/** A group as Dioptra answers one. */
export type GroupResponse = typeof GroupResponse.Type
