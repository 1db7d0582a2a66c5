/**
 * Retrace's spans and metrics (docs/performance.md, "Tracing"), through the OpenTelemetry API. Until
 * lib/telemetry/sdk.ts starts the SDK (only when OTEL_EXPORTER_OTLP_ENDPOINT is set) every helper here is a
 * branch on `on` and nothing else: no span, no clock, no allocation per token.
 */
import {
  type Attributes,
  type Context,
  type Counter,
  context,
  type Histogram,
  type Link,
  metrics,
  propagation,
  type Span,
  type SpanContext,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";

const tracer = trace.getTracer("retrace");
let on = false;
let instruments: { turns: Counter; tokens: Counter; errors: Counter; firstToken: Histogram } | null = null;

/** Called once the SDK is registered: from now on spans are recorded and metrics counted. */
export function enableTelemetry() {
  const meter = metrics.getMeter("retrace");
  instruments = {
    turns: meter.createCounter("retrace.turns", { description: "Turns ended, by final state" }),
    tokens: meter.createCounter("retrace.tokens", { description: "Text deltas streamed from the model (one per token chunk)" }),
    errors: meter.createCounter("retrace.turn.errors", { description: "Turns that failed" }),
    firstToken: meter.createHistogram("retrace.turn.time_to_first_token", {
      unit: "ms",
      description: "Turn start to the model's first text",
    }),
  };
  on = true;
}

export function disableTelemetry() {
  on = false;
  instruments = null;
}

/** A turn's span context by its invocation id, so that what acts on the turn later (rewind, fork, switch, approval) links to it. */
const turnSpans = new Map<string, SpanContext>();
const REMEMBERED = 10_000;
function remember(invocationId: string, span: Span) {
  turnSpans.set(invocationId, span.spanContext());
  if (turnSpans.size > REMEMBERED) turnSpans.delete(turnSpans.keys().next().value as string);
}
const linksTo = (invocationId: string | undefined): Link[] => {
  const target = invocationId ? turnSpans.get(invocationId) : undefined;
  return target ? [{ context: target, attributes: { "retrace.invocation_id": invocationId } }] : [];
};

function ended(span: Span, error: unknown) {
  span.recordException(error as Error);
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

const unlinked = () => undefined;

/**
 * Runs `fn` in a span named `name`, child of the active one; `acts` names the turn it acts on (linked), or
 * `fn` links it once it knows (an approval learns its turn inside its transaction).
 */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (link: (invocationId: string) => void) => Promise<T>,
  acts?: string,
): Promise<T> {
  if (!on) return fn(unlinked);
  return tracer.startActiveSpan(name, { attributes, links: linksTo(acts) }, async (span) => {
    try {
      return await fn((invocationId) => span.addLinks(linksTo(invocationId)));
    } catch (error) {
      ended(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * Runs `fn` in a server span for one HTTP request: a child of the span Next.js opened for it when there is
 * one (Next.js has continued the caller's `traceparent` then), else of the caller's `traceparent` itself.
 */
export function inRequestSpan<T>(request: Request, name: string, fn: () => Promise<T>): Promise<T> {
  if (!on) return fn();
  const active = context.active();
  const parent = trace.getSpan(active) ? active : propagation.extract(active, Object.fromEntries(request.headers));
  return context.with(parent, () => inSpan(name, { "http.request.method": request.method }, () => fn()));
}

/** What the runtime tells a turn's trace (lib/agent/runtime.ts); all no-ops while telemetry is off. */
export interface TurnTrace {
  /** `fn` as a span of the turn (begin, history, end). */
  phase<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /** `fn` as the turn's first span (its begin, an approval): the turn ends with it when it throws. */
  begin<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /** The agent starts: the model's time to first token runs. */
  modelStarts(): void;
  /** A text delta streamed: the first one ends time to first token and starts the stream span. */
  token(): void;
  ended(state: string, error?: unknown): void;
}

const OFF: TurnTrace = {
  phase: (_name, fn) => fn(),
  begin: (_name, fn) => fn(),
  modelStarts() {},
  token() {},
  ended() {},
};

/**
 * The span of one turn (a child of the active context: the A2A request, which continued the caller's
 * `traceparent`), for `invocationId`; `resumes` names the turn an approval resumes (linked).
 */
export function traceTurn(attributes: { agent: string; sessionId: string; invocationId: string; resumes?: string }): TurnTrace {
  if (!on || !instruments) return OFF;
  const metered = instruments;
  const started = performance.now();
  const turn = tracer.startSpan(
    attributes.resumes ? "retrace.turn.resume" : "retrace.turn",
    {
      attributes: {
        "retrace.agent": attributes.agent,
        "retrace.session_id": attributes.sessionId,
        "retrace.invocation_id": attributes.invocationId,
      },
      links: linksTo(attributes.resumes),
    },
    context.active(),
  );
  remember(attributes.invocationId, turn);
  const inTurn: Context = trace.setSpan(context.active(), turn);
  const child = (name: string) => tracer.startSpan(name, {}, inTurn);
  let model: Span | null = null;
  let stream: Span | null = null;
  let tokens = 0;
  const traced: TurnTrace = {
    phase: (name, fn) => context.with(inTurn, () => inSpan(name, {}, () => fn())),
    begin: (name, fn) =>
      traced.phase(name, fn).catch((error) => {
        traced.ended("rejected", error);
        throw error;
      }),
    modelStarts() {
      model ??= child("retrace.model.first_token");
    },
    token() {
      tokens += 1;
      if (stream) return;
      model?.end();
      model = null;
      metered.firstToken.record(performance.now() - started);
      stream = child("retrace.stream");
    },
    ended(state, error) {
      model?.end();
      model = null;
      stream?.setAttribute("retrace.tokens", tokens);
      stream?.end();
      metered.tokens.add(tokens);
      metered.turns.add(1, { "retrace.state": state });
      turn.setAttribute("retrace.state", state);
      if (state === "failed") {
        metered.errors.add(1);
        turn.setStatus({ code: SpanStatusCode.ERROR });
      } else if (error !== undefined) ended(turn, error);
      turn.end();
    },
  };
  return traced;
}
