/** Typed access to the kagent metadata Retrace puts on A2A tasks and messages. */
type WithMetadata = { metadata?: Record<string, unknown> } | null | undefined;

/** The ADK invocation a task or message belongs to (`metadata.kagent_invocation_id`). */
export function invocationIdOf(item: WithMetadata): string | undefined {
  const id = item?.metadata?.kagent_invocation_id;
  return typeof id === "string" ? id : undefined;
}
