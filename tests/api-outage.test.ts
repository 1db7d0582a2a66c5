/**
 * A PostgreSQL outage as the API answers it (docs/api.md, "Errors"): REST says 503 `unavailable`, and A2A says the
 * same thing in JSON-RPC — never the -32603 "Internal error" of a bug. (SQLite is in the process: it has no outage.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, setDb } from "@/lib/db/connection";
import { openPostgres } from "@/lib/db/postgres";
import { startPostgres, type TestPostgres } from "../scripts/test-postgres";
import { call, guestWithChat, routes } from "./support/api";

describe.runIf(process.env.TEST_DIALECT === "postgres")("while PostgreSQL is down", () => {
  let server: TestPostgres;
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(() => server.stop());

  it("REST answers 503 unavailable, and A2A (v0.3 and v1.0, sent or streamed) the JSON-RPC error -32000 that says so", async () => {
    let restarted: Promise<void> | undefined;
    setDb(await openPostgres(server.url, 2));
    try {
      const owner = await guestWithChat();
      const { json } = await call(routes.tasks.GET, { token: owner.token, params: { id: owner.sessionId } });
      const taskId = json.data[0].id as string;
      const rpc = (method: string, params: unknown, version?: string) =>
        call(routes.a2a.POST, {
          method: "POST",
          token: owner.token,
          params: { agent: "demo" },
          headers: version ? { "a2a-version": version } : {},
          body: { jsonrpc: "2.0", id: 7, method, params },
        });
      const message = { kind: "message", messageId: crypto.randomUUID(), role: "user", parts: [{ kind: "text", text: "hi" }] };

      restarted = server.restart(6_000);
      await expect.poll(async () => (await call(routes.sessions.GET, { token: owner.token })).status, { timeout: 5_000 }).toBe(503);
      const rest = await call(routes.session.GET, { token: owner.token, params: { id: owner.sessionId } });
      expect([rest.status, rest.json.code]).toEqual([503, "unavailable"]);

      const unavailable = { code: -32000, message: "The database is unavailable; try again in a moment" };
      for (const answer of [
        await rpc("tasks/get", { id: taskId }),
        await rpc("message/send", { message: { ...message, contextId: owner.sessionId } }),
        await rpc("message/stream", { message: { ...message, messageId: crypto.randomUUID(), contextId: owner.sessionId } }),
      ]) {
        expect(answer.status).toBe(200);
        expect(answer.json).toEqual({ jsonrpc: "2.0", id: 7, error: { ...unavailable, data: { code: "unavailable" } } });
      }
      for (const answer of [
        await rpc("GetTask", { id: taskId }, "1.0"),
        await rpc("SendMessage", { message: { role: "ROLE_USER", messageId: crypto.randomUUID(), parts: [{ text: "hi" }] } }, "1.0"),
      ]) {
        expect(answer.status).toBe(200);
        expect(answer.json).toEqual({ jsonrpc: "2.0", id: 7, error: unavailable });
      }

      await restarted;
      restarted = undefined;
      await expect.poll(async () => (await rpc("tasks/get", { id: taskId })).json.result?.id, { timeout: 10_000 }).toBe(taskId);
    } finally {
      await restarted;
      await closeDb();
    }
  }, 60_000);
});
