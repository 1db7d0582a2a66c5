/** ADK event shapes, snake_case as ADK's `model_dump_json()` writes them. */
import type { UsageMetadata } from "./usage";

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type State = Record<string, Json>;
/** A state delta: `null` deletes the key. */
export type StateDelta = Record<string, Json>;
/** filename → version recorded by an event. */
export type ArtifactDelta = Record<string, number>;

interface FunctionCall {
  id?: string;
  name: string;
  args?: Record<string, Json>;
}

interface FunctionResponse {
  id?: string;
  name: string;
  response?: Record<string, Json>;
}

export interface Part {
  text?: string;
  function_call?: FunctionCall;
  function_response?: FunctionResponse;
  inline_data?: { mime_type: string; data: string };
  [key: string]: unknown;
}

interface Content {
  role?: string;
  parts?: Part[];
}

export interface EventActions {
  state_delta?: StateDelta;
  artifact_delta?: ArtifactDelta;
  rewind_before_invocation_id?: string | null;
  [key: string]: unknown;
}

export interface AdkEvent {
  id: string;
  invocation_id: string;
  author: string;
  timestamp: number;
  content?: Content | null;
  actions?: EventActions;
  partial?: boolean | null;
  turn_complete?: boolean | null;
  interrupted?: boolean | null;
  error_code?: string | null;
  error_message?: string | null;
  /** App data; Retrace keeps `retrace_model` here, the model the turn ran on. */
  custom_metadata?: Record<string, unknown> | null;
  /** What the model call that produced this event used, as its provider reported it. */
  usage_metadata?: UsageMetadata | null;
  [key: string]: unknown;
}

/** A rewind marker's jump: walking backwards, reaching `seq` continues at `parent`. */
export interface MarkerLink {
  seq: number;
  parent: number;
  invocationId: string;
}

/** An inclusive range of sequence numbers that is part of the effective history. */
export type Segment = readonly [from: number, to: number];
