import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Json } from "@/lib/session/types";

/** The most characters of a tool's answer the model and the chat get (as the file tools, lib/agent/tools.ts). */
export const MAX_TOOL_TEXT = 20_000;

/** Content that is not text, summed up in a line: the model gets what it is, not its bytes. */
function summary(item: CallToolResult["content"][number]): string {
  switch (item.type) {
    case "text":
      return item.text;
    case "image":
    case "audio":
      return `[${item.type} ${item.mimeType}, about ${Math.floor((item.data.length * 3) / 4)} bytes]`;
    case "resource_link":
      return `[resource ${item.uri}${item.name ? ` (${item.name})` : ""}]`;
    case "resource":
      return "text" in item.resource && typeof item.resource.text === "string"
        ? item.resource.text
        : `[resource ${item.resource.uri}${item.resource.mimeType ? `, ${item.resource.mimeType}` : ""}]`;
    default:
      return "[content of an unknown kind]";
  }
}

/**
 * An MCP result as the `function_response.response` stored and shown to the model: its text (other content
 * summed up, in order) as `result`, or as `error` when the tool says it failed; structured content when it
 * has some and fits; at most MAX_TOOL_TEXT characters of text, marked `truncated`.
 */
export function toResponse(result: CallToolResult): Record<string, Json> {
  const text = (result.content ?? []).map(summary).join("\n");
  const truncated = text.length > MAX_TOOL_TEXT;
  const body = truncated ? text.slice(0, MAX_TOOL_TEXT) : text;
  const response: Record<string, Json> = result.isError ? { error: body || "The tool failed." } : { result: body };
  if (truncated) Object.assign(response, { truncated: true, total_characters: text.length });
  const structured = result.structuredContent && JSON.stringify(result.structuredContent);
  if (structured && structured.length <= MAX_TOOL_TEXT) response.structured = result.structuredContent as Json;
  return response;
}
