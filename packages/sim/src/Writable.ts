// Values built key by key (only the keys that have a value, in a fixed order) on paths every call takes,
// where a spread per optional key would cost an object each.

/** `T` with its readonly keys writable, for building one of it key by key. */
export type Writable<T> = { -readonly [K in keyof T]: T[K] }
