/** Accounts in tests: better-auth's routes called as a browser would, with a cookie jar. */
import * as authRoute from "@/app/api/auth/[...all]/route";
import { call, routes } from "./api";

const ORIGIN = "http://localhost";

/** A browser's cookies: what the server set, sent back on every request. */
export class Browser {
  readonly cookies = new Map<string, string>();

  /** `origin`: where the page is (`https://…` for a browser over TLS); `extra`: headers every request carries. */
  constructor(
    guestToken?: string,
    readonly origin = ORIGIN,
    readonly extra: Record<string, string> = {},
  ) {
    if (guestToken) this.cookies.set("retrace_token", guestToken);
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  take(response: { headers: Headers }) {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair, ...attributes] = cookie.split(";");
      const at = pair.indexOf("=");
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === "";
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  /** A better-auth route, e.g. `/sign-up/email`; JSON in, `{status, json}` out. */
  async auth(path: string, body?: unknown, method = body === undefined ? "GET" : "POST") {
    const headers: Record<string, string> = { ...this.extra, cookie: this.header(), origin: this.origin };
    if (body !== undefined) headers["content-type"] = "application/json";
    const request = new Request(`${this.origin}/api/auth${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const response = await authRoute.POST(request);
    this.take(response);
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON a route answered
    return { status: response.status, json: json as any, headers: response.headers };
  }

  /** An app route (`routes.*`) with this browser's cookies, from our own origin. */
  async api(route: unknown, options: Parameters<typeof call>[1] = {}) {
    const result = await call(route, {
      ...options,
      headers: { cookie: this.header(), origin: this.origin, ...this.extra, ...options.headers },
    });
    this.take(result);
    return result;
  }

  async sessions(): Promise<string[]> {
    const { json } = await this.api(routes.sessions.GET);
    return (json.data as { id: string }[]).map((s) => s.id);
  }
}

let counter = 0;
/** A fresh address and a password that passes the strength rule. */
export function newCredentials(name = "Ada Lovelace") {
  counter += 1;
  return { name, email: `ada${counter}-${crypto.randomUUID().slice(0, 8)}@example.com`, password: "correct horse battery staple" };
}
