import { openSqlite } from "@/lib/db/sqlite";
import { checkInvariants } from "@/lib/db/tx/invariants";
import { expect, test } from "./support/fixtures";

const DATABASE = `.e2e-data-${process.env.E2E_PORT ?? 3210}/retrace.db`;

test("parallel appends, rewinds and forks over HTTP serialise cleanly", async ({ request }) => {
  const { data: guest } = await (await request.post("/api/auth/guest")).json();
  const headers = { authorization: `Bearer ${guest.token}` };
  const { data: session } = await (await request.post("/api/sessions", { headers, data: { name: "race" } })).json();
  const path = `/api/sessions/${session.id}`;
  const turn = (i: number) => [
    { invocation_id: `inv-${i}`, author: "user", content: { parts: [{ text: `q${i}` }] } },
    { invocation_id: `inv-${i}`, author: "agent", content: { parts: [{ text: `a${i}` }] }, actions: { state_delta: { [`k${i % 3}`]: i } } },
  ];
  const operations = Array.from({ length: 60 }, (_, i) => {
    if (i % 3 === 0) return request.post(`${path}/rewind`, { headers, data: { rewind_before_invocation_id: `inv-${i - 2}` } });
    if (i % 5 === 0) return request.post(`${path}/fork`, { headers, data: { rewind_before_invocation_id: `inv-${i - 4}` } });
    return request.post(`${path}/events`, { headers, data: turn(i) });
  });
  const responses = await Promise.all(operations);
  const outcomes = await Promise.all(responses.map(async (r) => (r.ok() ? r.status() : (await r.json()).code)));
  // A rewind or fork may name an invocation whose append has not landed yet: a clean 400, nothing else.
  expect(new Set(outcomes).size).toBeGreaterThan(1);
  for (const outcome of outcomes) expect([200, 201, "invocation_not_found"]).toContain(outcome);

  const { data: events } = await (await request.get(`${path}/events`, { headers })).json();
  const appended = outcomes.flatMap((o, i) =>
    o === 201 && i % 3 !== 0 && i % 5 !== 0 ? turn(i).map((e) => `${e.invocation_id}/${e.author}`) : [],
  );
  const stored = events.filter((e: { actions: { rewind_before_invocation_id?: string } }) => !e.actions.rewind_before_invocation_id);
  expect(stored.map((e: { invocation_id: string; author: string }) => `${e.invocation_id}/${e.author}`).sort()).toEqual(appended.sort());
  const db = openSqlite(DATABASE);
  expect(await checkInvariants(db)).toEqual([]);
  await db.close();
});
