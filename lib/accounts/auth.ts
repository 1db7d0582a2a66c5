import "server-only";
/**
 * better-auth over the store's own connection: email and password, passkeys, and OpenID Connect from the
 * environment. Its tables live beside the store's (lib/db/schema/accounts-*.ts) and an account's id is a
 * `users` id. Every session it creates upgrades the guest the request came from (lib/db/accounts.ts).
 */
import { passkey } from "@better-auth/passkey";
import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { APIError, createAuthMiddleware } from "better-auth/api";
import { genericOAuth } from "better-auth/plugins";
import { drizzle as nodePostgres } from "drizzle-orm/node-postgres";
import { drizzle as sqliteProxy } from "drizzle-orm/sqlite-proxy";
import { derivedSecret } from "@/lib/auth";
import { config } from "@/lib/config";
import { ensureAccountUser, mergeGuest, requireMergeable, spendInvite } from "@/lib/db/accounts";
import { getDb } from "@/lib/db/client";
import type { Database } from "@/lib/db/database";
import * as postgresSchema from "@/lib/db/schema/accounts-postgres";
import * as sqliteSchema from "@/lib/db/schema/accounts-sqlite";
import { AppError } from "@/lib/errors";
import { passkeySignup } from "./passkey-signup";
import { guestOf, MAX_PASSWORD, MIN_PASSWORD, requireSignupAllowed, requireStrongPassword } from "./policy";

/** How long a browser trusts its signed session cookie before asking the database again (sign-out elsewhere takes this long). */
const SESSION_CACHE_SECONDS = 60;
export const OIDC_PROVIDER = "oidc";

/** better-auth's models under the store's table names (the drizzle adapter finds tables by model name). */
function tables(schema: typeof sqliteSchema | typeof postgresSchema) {
  return {
    auth_users: schema.authUsers,
    auth_sessions: schema.authSessions,
    auth_accounts: schema.authAccounts,
    auth_verifications: schema.authVerifications,
    auth_passkeys: schema.authPasskeys,
    auth_rate_limits: schema.authRateLimits,
  };
}

/**
 * SQLite: a drizzle sqlite-proxy whose statements run through the store's connection and lock (a plain
 * better-sqlite3 drizzle on it could slip a statement into an open store transaction). PostgreSQL: the pool.
 */
function adapterFor(db: Database) {
  if (db.driver.kind === "sqlite") {
    const schema = tables(sqliteSchema);
    return drizzleAdapter(sqliteProxy(db.driver.query, { schema }), { provider: "sqlite", schema });
  }
  const schema = tables(postgresSchema);
  return drizzleAdapter(nodePostgres(db.driver.pool, { schema }), { provider: "pg", schema });
}

/** A store failure inside a better-auth hook, as the status and message better-auth answers with. */
function asApiError(error: unknown): never {
  if (!(error instanceof AppError)) throw error;
  throw new APIError(error.status === 409 ? "CONFLICT" : "BAD_REQUEST", { message: error.message, code: error.code.toUpperCase() });
}

function create(db: Database) {
  const { oidc } = config().accounts;
  return betterAuth({
    appName: "Retrace",
    basePath: "/api/auth",
    secret: derivedSecret("better-auth"),
    database: adapterFor(db),
    telemetry: { enabled: false },
    // It warns that the base URL comes from each request: that is deliberate (the route passes the client's origin).
    logger: { level: "error" },
    user: { modelName: "auth_users" },
    session: {
      modelName: "auth_sessions",
      expiresIn: 30 * 24 * 60 * 60,
      updateAge: 24 * 60 * 60,
      cookieCache: { enabled: true, maxAge: SESSION_CACHE_SECONDS, strategy: "compact" },
    },
    account: { modelName: "auth_accounts" },
    verification: { modelName: "auth_verifications" },
    emailAndPassword: { enabled: true, minPasswordLength: MIN_PASSWORD, maxPasswordLength: MAX_PASSWORD, autoSignIn: true },
    // Shared by every instance (the database), per client address and path: 5 tries a minute at a password.
    rateLimit: {
      enabled: true,
      storage: "database",
      modelName: "auth_rate_limits",
      window: 60,
      max: 100,
      customRules: { "/sign-in/email": { window: 60, max: 5 }, "/sign-up/email": { window: 60, max: 5 } },
    },
    advanced: { cookiePrefix: "retrace", database: { generateId: () => crypto.randomUUID() } },
    plugins: [
      passkey({ rpName: "Retrace", schema: { passkey: { modelName: "auth_passkeys" } }, registration: passkeySignup }),
      ...(oidc
        ? [
            genericOAuth({
              config: [
                {
                  providerId: OIDC_PROVIDER,
                  name: oidc.name,
                  discoveryUrl: `${oidc.issuer.replace(/\/$/, "")}/.well-known/openid-configuration`,
                  clientId: oidc.clientId,
                  clientSecret: oidc.clientSecret,
                  scopes: ["openid", "email", "profile"],
                  pkce: true,
                  requireIdTokenVerification: true,
                },
              ],
            }),
          ]
        : []),
    ],
    hooks: {
      before: createAuthMiddleware(async (ctx) => {
        if (ctx.path === "/sign-up/email") requireStrongPassword(ctx.body?.password, ctx.body ?? {});
        if (ctx.path === "/change-password") requireStrongPassword(ctx.body?.newPassword, ctx.context.session?.user ?? {});
      }),
    },
    databaseHooks: {
      user: {
        create: {
          before: async (user) => {
            await requireSignupAllowed(user.email);
          },
          after: async (user) => {
            await ensureAccountUser(user.id);
            if (config().accounts.signup === "invite") await spendInvite(user.email);
          },
        },
      },
      session: {
        create: {
          // Checked before the session exists, so a forged guest token signs nobody in.
          before: async (session, ctx) => {
            const guest = await guestOf(ctx?.headers);
            if (guest && guest !== session.userId) await requireMergeable(guest).catch(asApiError);
          },
          after: async (session, ctx) => {
            const guest = await guestOf(ctx?.headers);
            if (guest) await mergeGuest(guest, session.userId).catch(asApiError);
          },
        },
      },
    },
  });
}

export type Auth = ReturnType<typeof create>;

const instances = new WeakMap<Database, Auth>();

/** better-auth on the process's store (a new one when tests swap the database). */
export async function getAuth(): Promise<Auth> {
  const db = await getDb();
  let auth = instances.get(db);
  if (!auth) {
    auth = create(db);
    instances.set(db, auth);
  }
  return auth;
}
