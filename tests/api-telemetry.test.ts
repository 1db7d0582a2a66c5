import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rewindSession } from "@/lib/db/queries";
import { startTelemetry, stopTelemetry } from "@/lib/telemetry/sdk";
import { legacyMessage, sseFrames } from "./support/a2a";
import { call, newGuest, routes } from "./support/api";

/**
 * Tracing (docs/performance.md, "Tracing"): with OTEL_EXPORTER_OTLP_ENDPOINT set, a turn's spans reach an OTLP
 * receiver (this test's, HTTP/JSON) in the trace of the A2A client's `traceparent`, and what acts on a turn links to it.
 */
type OtlpSpan = { traceId: string; spanId: string; parentSpanId?: string; name: string; links?: { spanId: string }[] };
const received = { spans: [] as OtlpSpan[], metrics: [] as string[] };
let receiver: Server;
const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN = "00f067aa0ba902b7";

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      const data = JSON.parse(body);
      for (const r of data.resourceSpans ?? []) for (const s of r.scopeSpans) received.spans.push(...s.spans);
      for (const r of data.resourceMetrics ?? [])
        for (const s of r.scopeMetrics) received.metrics.push(...s.metrics.map((m: { name: string }) => m.name));
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  process.env.OTEL_EXPORTER_OTLP_PROTOCOL = "http/json";
  process.env.DEMO_WORD_DELAY_MS = "0";
  await startTelemetry();
});

afterAll(async () => {
  await stopTelemetry();
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  receiver.close();
});

const stream = async (token: string, message: unknown) => {
  const response = await call(routes.a2a.POST, {
    method: "POST",
    token,
    params: { agent: "demo" },
    body: { jsonrpc: "2.0", id: 1, method: "message/stream", params: { message } },
    headers: { traceparent: `00-${TRACE_ID}-${CLIENT_SPAN}-01` },
  });
  return sseFrames(response.text).map((f) => f.result);
};

describe("OpenTelemetry", () => {
  it("exports a turn's trace over OTLP, continuing the client's traceparent; a rewind and an approval link to their turns", async () => {
    const user = await newGuest();
    const frames = await stream(user.token, legacyMessage("recap"));
    const { contextId, metadata } = frames[0];
    const invocationId = metadata.kagent_invocation_id as string;
    await rewindSession(user.user_id, contextId, invocationId);
    const paused = await stream(user.token, legacyMessage("add todo buy milk", contextId));
    expect(paused.at(-1).status.state).toBe("input-required");
    const decision = {
      ...legacyMessage("Approved", contextId),
      taskId: paused[0].id,
      parts: [{ kind: "data", data: { decision_type: "approve" } }],
    };
    expect((await stream(user.token, decision)).at(-1).status.state).toBe("completed");
    await stopTelemetry();

    const named = (name: string) => received.spans.filter((s) => s.name === name);
    const [request] = named("retrace.a2a");
    expect(request).toMatchObject({ traceId: TRACE_ID, parentSpanId: CLIENT_SPAN });
    const [turn] = named("retrace.turn");
    expect(turn.traceId).toBe(TRACE_ID);
    expect(turn.parentSpanId).toBe(request.spanId);
    expect(named("retrace.auth")[0].parentSpanId).toBe(request.spanId);
    for (const phase of ["retrace.begin", "retrace.history", "retrace.model.first_token", "retrace.stream", "retrace.end"]) {
      expect(named(phase)[0], phase).toMatchObject({ traceId: TRACE_ID, parentSpanId: turn.spanId });
    }
    expect(named("retrace.rewind")[0].links?.map((l) => l.spanId)).toEqual([turn.spanId]);
    const paused0 = named("retrace.turn").find((s) => s.spanId !== turn.spanId) as OtlpSpan;
    expect(named("retrace.approval")[0].links?.map((l) => l.spanId)).toEqual([paused0.spanId]);
    expect(named("retrace.turn.resume")[0].links?.map((l) => l.spanId)).toEqual([paused0.spanId]);
    expect(received.metrics).toEqual(expect.arrayContaining(["retrace.turns", "retrace.tokens", "retrace.turn.time_to_first_token"]));
  });
});
