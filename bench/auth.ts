/**
 * `npm run bench -- --auth`: what signing in costs a request. The same small read (`GET /api/sessions`, five
 * chats) as a guest (cookie, Bearer), as a signed-in account (better-auth's session cookie) and with a personal
 * API token, interleaved so a slow moment hits every kind alike; p50 and p99 of each, and the account's p50
 * minus the guest's (target ≤ 5 ms).
 */
import { middle } from "./measure";

const ORIGIN_HEADERS = (base: string) => ({ origin: base, "content-type": "application/json" });

async function post(base: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { ...ORIGIN_HEADERS(base), ...headers },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status} ${await response.text()}`);
  return response;
}

const cookiesOf = (response: Response) => response.headers.getSetCookie().map((c) => c.split(";")[0]);

/** A guest with five chats, then the same browser signed up: its cookies, and an API token of the account. */
async function people(base: string) {
  const guest = (await (await post(base, "/api/auth/guest", {})).json()) as { data: { token: string } };
  const guestToken = guest.data.token;
  for (let i = 0; i < 5; i++) await post(base, "/api/sessions", { name: `chat ${i}` }, { authorization: `Bearer ${guestToken}` });
  const other = (await (await post(base, "/api/auth/guest", {})).json()) as { data: { token: string } };
  const signUp = await post(
    base,
    "/api/auth/sign-up/email",
    { name: "Bench", email: `bench-${crypto.randomUUID()}@example.com`, password: "correct horse battery staple" },
    { cookie: `retrace_token=${guestToken}` },
  );
  const account = cookiesOf(signUp).join("; ");
  for (let i = 0; i < 5; i++) await post(base, "/api/sessions", { name: `other ${i}` }, { authorization: `Bearer ${other.data.token}` });
  const token = (await (await post(base, "/api/account/tokens", { name: "bench" }, { cookie: account })).json()) as {
    data: { token: string };
  };
  return {
    "guest (cookie)": { cookie: `retrace_token=${other.data.token}` },
    "guest (Bearer)": { authorization: `Bearer ${other.data.token}` },
    "account (session cookie)": { cookie: account },
    "account (API token)": { authorization: `Bearer ${token.data.token}` },
  } as Record<string, Record<string, string>>;
}

export async function authBench(base: string, rounds = 400) {
  const kinds = await people(base);
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]));
  for (let i = -20; i < rounds; i++) {
    for (const [kind, headers] of Object.entries(kinds)) {
      const start = performance.now();
      const response = await fetch(`${base}/api/sessions`, { headers });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${kind}: HTTP ${response.status}`);
      if (i >= 0) times[kind].push(performance.now() - start);
    }
  }
  const p = (list: number[], q: number) => [...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor(list.length * q))];
  const rows = Object.entries(times).map(([kind, list]) => ({ kind, p50: middle(list), p99: p(list, 0.99) }));
  const guest = rows[0].p50;
  return { rounds, rows, signInAddsP50: rows[2].p50 - guest, tokenAddsP50: rows[3].p50 - guest };
}
