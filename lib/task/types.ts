/**
 * Retrace's own representation of A2A tasks and messages (docs/semantics.md, "Concepts"): the protocol v0.3 JSON shapes, with
 * `kind` discriminators. The store keeps them, the REST API returns them and the UI renders them.
 * `@a2a-js/sdk` 1.x exports only the v1.0 (protobuf-shaped) types and keeps its v0.3 types private, so
 * they are declared here, field for field as in the v0.3 JSON schema; the SDK's compat translators turn
 * them into v1.0 objects at the protocol edges (lib/a2a/wire.ts, lib/a2a/client.ts).
 */

type Metadata = { [key: string]: unknown };

export type TaskState =
  | "submitted"
  | "working"
  | "input-required"
  | "completed"
  | "canceled"
  | "failed"
  | "rejected"
  | "auth-required"
  | "unknown";

interface TextPart {
  kind: "text";
  text: string;
  metadata?: Metadata;
}

interface FilePart {
  kind: "file";
  file: { bytes: string; mimeType?: string; name?: string } | { uri: string; mimeType?: string; name?: string };
  metadata?: Metadata;
}

interface DataPart {
  kind: "data";
  data: { [key: string]: unknown };
  metadata?: Metadata;
}

export type Part = TextPart | FilePart | DataPart;

export interface Message {
  kind: "message";
  messageId: string;
  role: "agent" | "user";
  parts: Part[];
  contextId?: string;
  taskId?: string;
  metadata?: Metadata;
  extensions?: string[];
  referenceTaskIds?: string[];
}

interface TaskStatus {
  state: TaskState;
  message?: Message;
  timestamp?: string;
}

interface Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: Part[];
  metadata?: Metadata;
  extensions?: string[];
}

export interface Task {
  kind: "task";
  id: string;
  contextId: string;
  status: TaskStatus;
  history?: Message[];
  artifacts?: Artifact[];
  metadata?: Metadata;
}

export interface TaskStatusUpdateEvent {
  kind: "status-update";
  taskId: string;
  contextId: string;
  status: TaskStatus;
  final: boolean;
  metadata?: Metadata;
}

/** A piece of a task's output; Retrace sends one, the reply that closes a streamed turn (docs/api.md, "Streaming"). */
export interface TaskArtifactUpdateEvent {
  kind: "artifact-update";
  taskId: string;
  contextId: string;
  artifact: Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: Metadata;
}
