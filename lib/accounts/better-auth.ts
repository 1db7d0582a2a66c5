import "server-only";
/**
 * better-auth over the store's own connection: email and password, passkeys, and OpenID Connect from the
 * environment. Its tables live beside the store's (lib/db/schema/accounts-*.ts) and an account's id is a
 * `users` id. Every session it creates upgrades the guest the request came from (lib/db/accounts.ts).
 */
import { passkey } from "@better-auth/passkey";
import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { genericOAuth } from "better-auth/plugins";
import { drizzle as nodePostgres } from "drizzle-orm/node-postgres";
import { drizzle as sqliteProxy } from "drizzle-orm/sqlite-proxy";
import { derivedSecret } from "@/lib/accounts/guest-token";
import { config } from "@/lib/config";
import { type Database, getDb } from "@/lib/db/connection";
import * as postgresSchema from "@/lib/db/schema/accounts-postgres";
import * as sqliteSchema from "@/lib/db/schema/accounts-sqlite";
import { CLIENT_ADDRESS_HEADER } from "./client-address";
import { beforeHook, databaseHooks } from "./hooks";
import { passkeySignup } from "./passkey-signup";
import { MAX_PASSWORD, MIN_PASSWORD } from "./policy";

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

/** Per client address and path, shared by every instance (the database): a few tries a minute at a password or a passkey. */
const RATE_LIMITS = {
  "/sign-in/email": { window: 60, max: 5 },
  "/sign-up/email": { window: 60, max: 5 },
  "/passkey/generate-register-options": { window: 60, max: 10 },
  "/passkey/verify-registration": { window: 60, max: 5 },
  "/passkey/generate-authenticate-options": { window: 60, max: 10 },
  "/passkey/verify-authentication": { window: 60, max: 5 },
};

/**
 * `secure`: cookies for HTTPS (`__Secure-`, `Secure`), or for plain HTTP. A browser keeps no Secure cookie from
 * a plain-HTTP page on another host than localhost, so the route picks the instance by the request's scheme,
 * as the guest cookie's `Secure` follows it.
 */
function create(db: Database, secure: boolean) {
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
    rateLimit: { enabled: true, storage: "database", modelName: "auth_rate_limits", window: 60, max: 100, customRules: RATE_LIMITS },
    advanced: {
      cookiePrefix: "retrace",
      useSecureCookies: secure,
      // Never a client's own X-Forwarded-For: the address the route computed (lib/accounts/client-address.ts).
      ipAddress: { ipAddressHeaders: [CLIENT_ADDRESS_HEADER] },
      database: { generateId: () => crypto.randomUUID() },
    },
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
    hooks: { before: beforeHook },
    databaseHooks,
  });
}

export type Auth = ReturnType<typeof create>;

const instances = new WeakMap<Database, { secure?: Auth; plain?: Auth }>();

/** better-auth on the process's store (a new one when tests swap the database), with HTTPS or plain-HTTP cookies. */
export async function getAuth(secure: boolean): Promise<Auth> {
  const db = await getDb();
  const both = instances.get(db) ?? {};
  instances.set(db, both);
  const kind = secure ? "secure" : "plain";
  const auth = both[kind] ?? create(db, secure);
  both[kind] = auth;
  return auth;
}
