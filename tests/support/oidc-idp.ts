/**
 * A real OpenID Connect provider (the `oidc-provider` package), started by the tests on a free port: a
 * company IdP that signs in whoever the test says, consenting on the user's behalf, so flows run
 * without a login page. Its cookies stay with the caller (a browser, or `authorize` below).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

interface IdpUser {
  sub: string;
  email: string;
  name: string;
}

export interface Idp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The user the next sign-in at the IdP is. */
  loginAs(user: IdpUser): void;
  /** Follows an authorization URL through the IdP (no browser) to the client's redirect with its code. */
  authorize(url: string): Promise<string>;
  stop(): Promise<void>;
}

/** Starts the IdP; `redirectUris` are the app's callback URLs (`<origin>/api/auth/callback/oidc`). */
export async function startIdp(redirectUris: string[]): Promise<Idp> {
  const users = new Map<string, IdpUser>();
  let next: IdpUser | undefined;
  const clientId = "retrace";
  const clientSecret = `secret-${crypto.randomUUID()}`;
  // Listening first: the issuer URL needs the port the system picked.
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: [
      { client_id: clientId, client_secret: clientSecret, redirect_uris: redirectUris, token_endpoint_auth_method: "client_secret_post" },
    ],
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    findAccount: (_ctx, sub) => {
      const user = users.get(sub);
      return user ? { accountId: sub, claims: () => ({ sub, email: user.email, email_verified: true, name: user.name }) } : undefined;
    },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: [crypto.randomUUID()] },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, AuthorizationCode: 60, IdToken: 600 },
  });
  // The interaction "page": log in the chosen user, then grant what the client asked for.
  provider.use(async (ctx, nextMiddleware) => {
    if (!ctx.path.startsWith("/interaction/")) return nextMiddleware();
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    if (details.prompt.name === "login") {
      if (!next) throw new Error("the test did not say who signs in at the IdP");
      users.set(next.sub, next);
      await provider.interactionFinished(ctx.req, ctx.res, { login: { accountId: next.sub } }, { mergeWithLastSubmission: false });
      return;
    }
    const grant = new provider.Grant({ accountId: details.session?.accountId as string, clientId });
    grant.addOIDCScope(String(details.params.scope));
    await provider.interactionFinished(ctx.req, ctx.res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
  });
  server.on("request", provider.callback());

  return {
    issuer,
    clientId,
    clientSecret,
    loginAs(user) {
      next = user;
    },
    async authorize(url) {
      const jar = new Map<string, string>();
      let location = url;
      for (let hop = 0; hop < 10; hop++) {
        if (!location.startsWith(issuer)) return location;
        const response = await fetch(location, {
          redirect: "manual",
          headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") },
        });
        for (const cookie of response.headers.getSetCookie()) {
          const [pair] = cookie.split(";");
          const at = pair.indexOf("=");
          jar.set(pair.slice(0, at), pair.slice(at + 1));
        }
        const target = response.headers.get("location");
        if (!target) throw new Error(`the IdP answered ${response.status} at ${location}: ${await response.text()}`);
        location = new URL(target, location).toString();
      }
      throw new Error("too many redirects at the IdP");
    },
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
