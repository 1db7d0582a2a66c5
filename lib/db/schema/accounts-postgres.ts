/**
 * Accounts on PostgreSQL: better-auth's tables (its drizzle adapter reads them by these JS keys, so the keys
 * are its camelCase field names) and Retrace's personal API tokens and invitations. An account's id is
 * also its `users` row's id: every store table keys by it unchanged (docs/api.md, "Accounts").
 */
import { bigint, boolean, index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { users } from "./postgres";

const date = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });
const flag = (name: string) => boolean(name);
const millis = (name: string) => bigint(name, { mode: "number" });

export const authUsers = pgTable("auth_users", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  email: text("email").notNull().unique(),
  emailVerified: flag("email_verified").notNull().default(false),
  image: text("image"),
  createdAt: date("created_at").notNull(),
  updatedAt: date("updated_at").notNull(),
});

const owner = () =>
  text("user_id")
    .notNull()
    .references(() => authUsers.id, { onDelete: "cascade" });

export const authSessions = pgTable(
  "auth_sessions",
  {
    id: text("id").primaryKey(),
    expiresAt: date("expires_at").notNull(),
    token: text("token").notNull().unique(),
    createdAt: date("created_at").notNull(),
    updatedAt: date("updated_at").notNull(),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    userId: owner(),
  },
  (t) => [index("auth_sessions_user").on(t.userId)],
);

export const authAccounts = pgTable(
  "auth_accounts",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    providerId: text("provider_id").notNull(),
    userId: owner(),
    accessToken: text("access_token"),
    refreshToken: text("refresh_token"),
    idToken: text("id_token"),
    accessTokenExpiresAt: date("access_token_expires_at"),
    refreshTokenExpiresAt: date("refresh_token_expires_at"),
    scope: text("scope"),
    password: text("password"),
    createdAt: date("created_at").notNull(),
    updatedAt: date("updated_at").notNull(),
  },
  (t) => [index("auth_accounts_user").on(t.userId), uniqueIndex("auth_accounts_provider").on(t.providerId, t.accountId)],
);

export const authVerifications = pgTable(
  "auth_verifications",
  {
    id: text("id").primaryKey(),
    identifier: text("identifier").notNull(),
    value: text("value").notNull(),
    expiresAt: date("expires_at").notNull(),
    createdAt: date("created_at").notNull(),
    updatedAt: date("updated_at").notNull(),
  },
  (t) => [index("auth_verifications_identifier").on(t.identifier)],
);

export const authPasskeys = pgTable(
  "auth_passkeys",
  {
    id: text("id").primaryKey(),
    name: text("name"),
    publicKey: text("public_key").notNull(),
    userId: owner(),
    credentialID: text("credential_id").notNull().unique(),
    counter: integer("counter").notNull(),
    deviceType: text("device_type").notNull(),
    backedUp: flag("backed_up").notNull(),
    transports: text("transports"),
    createdAt: date("created_at"),
    aaguid: text("aaguid"),
  },
  (t) => [index("auth_passkeys_user").on(t.userId)],
);

export const authRateLimits = pgTable("auth_rate_limits", {
  id: text("id").primaryKey(),
  key: text("key").notNull().unique(),
  count: integer("count").notNull(),
  lastRequest: millis("last_request").notNull(),
});

/** Personal API tokens: only a hash is stored; the token itself is shown once, when created. */
export const apiTokens = pgTable(
  "api_tokens",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    hash: text("hash").notNull().unique(),
    /** The token's first characters, so a person can tell their tokens apart. */
    prefix: text("prefix").notNull(),
    createdAt: millis("created_at").notNull(),
    lastUsedAt: millis("last_used_at"),
    expiresAt: millis("expires_at"),
  },
  (t) => [index("api_tokens_user").on(t.userId)],
);

/** RETRACE_SIGNUP=invite: the addresses the operator invited, each good for one new account. */
export const invites = pgTable("invites", {
  email: text("email").primaryKey(),
  createdAt: millis("created_at").notNull(),
  expiresAt: millis("expires_at").notNull(),
  usedAt: millis("used_at"),
});
