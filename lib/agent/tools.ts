import { z } from "zod";
import { saveArtifact } from "@/lib/db/queries";
import { AppError, issuesText } from "@/lib/errors";
import { hasKey, isAppKey } from "@/lib/session/state";
import { isCleanText, UNCLEAN_TEXT } from "@/lib/session/text";
import { isReservedKey } from "@/lib/session/tools";
import type { EventActions, Json } from "@/lib/session/types";
import { readFile } from "./attachments";
import { MAX_TOOL_TEXT } from "./mcp/result";
import type { InvocationContext } from "./types";

/** The four tools of ADK's rewind sample, shared by every agent. */
export const toolInputs = {
  update_state: z.object({
    key: z.string().min(1).describe("state key, e.g. color or user:name"),
    value: z.json().describe("the value to store"),
  }),
  load_state: z.object({ key: z.string().min(1).describe("state key to read") }),
  save_artifact: z.object({
    filename: z.string().min(1).describe("file name, e.g. notes.txt"),
    content: z.string().describe("the file's text content"),
  }),
  load_artifact: z.object({ filename: z.string().min(1).describe("file name to open") }),
};

export const toolDescriptions: Record<ToolName, string> = {
  update_state: "Store a value in the session state under a key.",
  load_state: "Read a value from the session state.",
  save_artifact: "Save a text file as a new version of a session artifact.",
  load_artifact: "Load the latest version of a session artifact.",
};

export type ToolName = keyof typeof toolInputs;

function isToolName(name: string): name is ToolName {
  return Object.hasOwn(toolInputs, name);
}

export interface ToolResult {
  response: Record<string, Json>;
  actions?: EventActions;
}

/** Runs a tool; bad arguments and missing things become an error response for the model, not a crash. */
export async function executeTool(ctx: InvocationContext, name: string, args: unknown): Promise<ToolResult> {
  if (!isToolName(name)) return { response: { error: `Unknown tool: ${name}` } };
  const parsed = toolInputs[name].safeParse(args);
  if (!parsed.success) return { response: { error: issuesText(parsed.error) } };
  const unclean = Object.entries(parsed.data).find(([, value]) => typeof value === "string" && !isCleanText(value));
  if (unclean) return { response: { error: `${unclean[0]} ${UNCLEAN_TEXT}` } };
  try {
    // The arguments as given: zod's copy of a JSON value drops `__proto__` keys, which are data here.
    return await run(ctx, name, args as never);
  } catch (error) {
    if (error instanceof AppError) return { response: { error: error.message } };
    throw error;
  }
}

async function run(ctx: InvocationContext, name: ToolName, args: Record<string, string> & { value: Json }): Promise<ToolResult> {
  switch (name) {
    case "update_state":
      // app: state reaches every user of the agent, so only the operator sets it.
      if (isAppKey(args.key)) return { response: { key: args.key, error: "app-wide (app:) state can only be set by the operator" } };
      // The tools the user allowed without asking are the user's decision, never a tool's.
      if (isReservedKey(args.key))
        return { response: { key: args.key, error: "retrace: keys are set by the app on the user's decisions" } };
      return { response: { status: "ok", key: args.key, value: args.value }, actions: { state_delta: { [args.key]: args.value } } };
    case "load_state": {
      const state = await ctx.state();
      return hasKey(state, args.key)
        ? { response: { key: args.key, value: state[args.key] } }
        : { response: { key: args.key, error: "not found" } };
    }
    case "save_artifact": {
      const file = { filename: args.filename, mimeType: "text/plain", data: Buffer.from(args.content, "utf8") };
      const saved = await saveArtifact(ctx.userId, ctx.sessionId, file, { turn: ctx.taskId });
      return { response: { status: "saved", ...saved }, actions: { artifact_delta: { [saved.filename]: saved.version } } };
    }
    case "load_artifact": {
      const file = await readFile(ctx, args.filename);
      // An image, say: what it is, not its bytes.
      if (file.text === null) {
        const { filename, version, mime_type, size } = file;
        return { response: { filename, version, mime_type, size, note: "not text: its content cannot be shown" } };
      }
      const content = file.text;
      const truncated = content.length > MAX_TOOL_TEXT;
      return {
        response: {
          filename: file.filename,
          version: file.version,
          content: truncated ? content.slice(0, MAX_TOOL_TEXT) : content,
          ...(truncated ? { truncated: true, total_characters: content.length } : {}),
        },
      };
    }
  }
}
