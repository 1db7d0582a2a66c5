import { expect, test } from "@playwright/test";
import { restartPostgresOn } from "../scripts/test-postgres";
import { guestToken, type Instance, instance, startInstance } from "./support/api-client";
import { INSTANCE_A, INSTANCE_B, POSTGRES_PORT, SHARED_SECRET } from "./support/instances";

/** Two app instances on one PostgreSQL (docs/semantics.md, "Turns"): any instance serves any request. */
test.describe("two instances on one PostgreSQL", () => {
  let a: Instance;
  let b: Instance;
  test.beforeEach(async () => {
    const token = await guestToken(INSTANCE_A);
    a = instance(INSTANCE_A, token);
    b = instance(INSTANCE_B, token);
  });

  /** Starts a long demo-agent turn on `on`; resolves once its task exists, with the rest of the stream. */
  async function slowTurn(on: Instance, contextId?: string, text = "tell me what you can do") {
    const frames = on.stream({ text, contextId });
    const first = (await frames.next()).value as unknown as { id: string; contextId: string };
    return { taskId: first.id, sessionId: first.contextId, frames };
  }

  test("a chat made on A is rewound on B, and A shows it after a reload", async ({ page }) => {
    const turns: string[] = [];
    let sessionId: string | undefined;
    for (const text of ["set color to red", "set color to blue"]) {
      const { frames, sessionId: id } = await slowTurn(a, sessionId, text);
      sessionId = id;
      for await (const frame of frames) if ((frame as { final?: boolean }).final) break;
      turns.push(text);
    }
    const tasks = (await b.json<{ data: { metadata: { kagent_invocation_id: string } }[] }>("GET", `/api/sessions/${sessionId}/tasks`))
      .body;
    const second = tasks.data[1].metadata.kagent_invocation_id;
    const rewound = await b.json("POST", `/api/sessions/${sessionId}/rewind`, { rewind_before_invocation_id: second });
    expect(rewound.status).toBe(200);

    await page.context().addCookies([{ name: "retrace_token", value: a.token, url: INSTANCE_A }]);
    await page.goto(`${INSTANCE_A}/chat/${sessionId}`);
    await expect(page.getByTestId("user-message")).toHaveCount(1);
    await expect(page.getByRole("region", { name: "Session state" }).getByTestId("state-color")).toContainText("red");
  });

  test("while A runs a turn, B answers 409 to writes, streams the rest of the turn, and its cancel stops it within a second", async () => {
    const turn = await slowTurn(a);
    const path = `/api/sessions/${turn.sessionId}`;
    expect((await b.json("POST", `${path}/events`, { invocation_id: "x", author: "user" })).body.code).toBe("session_busy");
    expect((await b.json("POST", `${path}/fork`, {})).body.code).toBe("session_busy");
    expect((await b.json<{ data: { session: { running_task_id: string } } }>("GET", path)).body.data.session.running_task_id).toBe(
      turn.taskId,
    );

    const followed = (await b.rpc("tasks/resubscribe", { id: turn.taskId })) as { results: Record<string, unknown>[] };
    const last = followed.results.at(-1) as { final: boolean; status: { state: string } };
    expect(last).toMatchObject({ final: true, status: { state: "completed" } });
    expect(
      followed.results.some((r) => (r.status as { message?: { metadata?: { adk_partial?: boolean } } })?.message?.metadata?.adk_partial),
    ).toBe(true);

    const next = await slowTurn(a, turn.sessionId);
    await new Promise((r) => setTimeout(r, 400));
    const asked = Date.now();
    const canceled = (await b.rpc("tasks/cancel", { id: next.taskId })) as unknown as {
      result: { status: { state: string }; history: { metadata: Record<string, unknown> }[] };
    };
    expect(Date.now() - asked).toBeLessThan(1000);
    expect(canceled.result.status.state).toBe("canceled");
    expect(canceled.result.history.at(-1)?.metadata.kagent_interrupted).toBe(true);
  });

  test("a send retried on the other instance with the same messageId runs no second turn", async () => {
    const messageId = crypto.randomUUID();
    const first = a.stream({ text: "set color to green", messageId });
    const task = (await first.next()).value as unknown as { id: string; contextId: string };
    const retried = [];
    for await (const frame of b.stream({ text: "set color to green", messageId, contextId: task.contextId })) retried.push(frame);
    expect(retried[0].id).toBe(task.id);
    const events = (await a.json<{ data: { author: string }[] }>("GET", `/api/sessions/${task.contextId}/events`)).body.data;
    expect(events.filter((e) => e.author === "user")).toHaveLength(1);
  });

  test("after PostgreSQL restarts under both instances, they stream and cancel across instances again; health says degraded meanwhile", async () => {
    test.setTimeout(90_000);
    const health = async (base: string) => (await fetch(`${base}/api/health`)).status;
    expect([await health(INSTANCE_A), await health(INSTANCE_B)]).toEqual([200, 200]);
    const restarted = restartPostgresOn(POSTGRES_PORT, 5_000);
    await expect.poll(() => health(INSTANCE_B), { timeout: 5_000 }).toBe(503);
    await restarted;
    const up = Date.now();
    for (const base of [INSTANCE_A, INSTANCE_B]) await expect.poll(() => health(base), { timeout: 15_000 }).toBe(200);
    console.log(`both instances healthy ${Date.now() - up} ms after PostgreSQL came back`);

    // A's turn, followed and stopped from B through the database's notifications.
    const turn = await slowTurn(a);
    const followed = b.rpc("tasks/resubscribe", { id: turn.taskId }) as Promise<{ results: Record<string, unknown>[] }>;
    await new Promise((r) => setTimeout(r, 1_000));
    const asked = Date.now();
    const canceled = (await b.rpc("tasks/cancel", { id: turn.taskId })) as unknown as { result: { status: { state: string } } };
    expect(Date.now() - asked).toBeLessThan(1000);
    expect(canceled.result.status.state).toBe("canceled");
    const { results } = await followed;
    expect(results.some((r) => (r.status as { message?: { metadata?: { adk_partial?: boolean } } })?.message?.metadata?.adk_partial)).toBe(
      true,
    );
    expect(results.at(-1)).toMatchObject({ final: true, status: { state: "canceled" } });
  });

  test("an instance killed mid-turn frees the chat within its lease; SIGTERM interrupts and releases at once", async () => {
    test.setTimeout(120_000);
    const env = {
      NEXT_DIST_DIR: process.env.E2E_DIST_DIR ?? ".next-e2e",
      DATABASE_URL: `postgres://postgres@127.0.0.1:${POSTGRES_PORT}/postgres`,
      AUTH_SECRET: SHARED_SECRET,
      DEMO_WORD_DELAY_MS: "200",
      RETRACE_TURN_LEASE_MS: "3000",
    };
    const port = POSTGRES_PORT + 1;
    for (const [signal, freedWithin] of [
      ["SIGKILL", 3000 + 5000 + 2000],
      ["SIGTERM", 2000],
    ] as const) {
      const c = await startInstance(port, env);
      const turn = await slowTurn(instance(c.base, a.token));
      await new Promise((r) => setTimeout(r, 600));
      c.process.kill(signal);
      await new Promise((r) => c.process.once("exit", r));
      const stopped = Date.now();
      const path = `/api/sessions/${turn.sessionId}`;
      type Task = { result: { status: { state: string }; history: { metadata: Record<string, unknown> }[] } };
      const task = async () => (await b.rpc("tasks/get", { id: turn.taskId })) as unknown as Task;
      const running = async () =>
        (await b.json<{ data: { session: { running_task_id: string | null } } }>("GET", path)).body.data.session.running_task_id;
      // Nobody writes to the chat meanwhile: the surviving instance's sweep closes the turn on its own.
      while ((await running()) || (await task()).result.status.state === "working") {
        expect(Date.now() - stopped).toBeLessThan(freedWithin);
        await new Promise((r) => setTimeout(r, 200));
      }
      const ended = await task();
      expect(ended.result.status.state).toBe("canceled");
      const ending = ended.result.history.at(-1)?.metadata;
      if (signal === "SIGTERM") expect(ending?.kagent_interrupted).toBe(true);
      else expect(ending?.kagent_error).toMatch(/Interrupted/);
      console.log(`${signal}: the chat was free ${Date.now() - stopped} ms after the instance stopped`);
      expect((await b.json("POST", `${path}/events`, { invocation_id: `after-${signal}`, author: "user" })).status).toBe(201);
    }
  });
});
