import { listAgents } from "@/lib/agent/registry";
import { handler, readQuery } from "@/lib/api/handler";
import { importQuery } from "@/lib/api/schemas";
import { importUpload } from "@/lib/db/queries";
import { AppError } from "@/lib/errors";
import { DEMO_AGENT } from "@/lib/session/names";

/** What an upload may be: a JSON file, or ChatGPT's ZIP (the types a cross-site form cannot send). */
const TYPES = new Set(["application/json", "application/zip", "application/x-zip-compressed"]);

const PROGRESS_EVERY_MS = 200;

function failure(error: unknown) {
  if (error instanceof AppError) return { status: error.status, body: { error: error.message, code: error.code } };
  console.error(error);
  return { status: 500, body: { error: "Internal server error", code: "internal" } };
}

/** Reads what is left of an upload, so a browser still sending it gets the answer instead of a broken connection. */
async function drain(body: AsyncIterable<Uint8Array>) {
  try {
    for await (const _ of body) {
      // discarded
    }
  } catch {
    // the client went away
  }
}

/**
 * Imports a Retrace archive, a ChatGPT conversations.json (or one shard) or ChatGPT's ZIP export, streamed
 * (docs/api.md, "Export and import"). With `Accept: application/x-ndjson` the answer is a line of progress
 * (`{"progress":{"bytes","chats"}}`) every 200 ms and a last line with the result or the error.
 */
export const POST = handler(async ({ request, userId }) => {
  const type = request.headers.get("content-type")?.split(";")[0].trim().toLowerCase() ?? "";
  if (!TYPES.has(type)) {
    throw new AppError(415, "unsupported_media_type", "Send the file as application/json, or a ZIP as application/zip");
  }
  const agents = listAgents().map((a) => a.name);
  const { agent = agents.includes(DEMO_AGENT) ? DEMO_AGENT : agents[0] } = readQuery(request, importQuery);
  if (!agents.includes(agent)) throw new AppError(400, "invalid_request", `Unknown agent: ${agent}`);
  const body = (request.body ?? (async function* () {})()) as AsyncIterable<Uint8Array>;
  if (!request.headers.get("accept")?.includes("application/x-ndjson")) {
    const chats = await importUpload(userId, body, { agent, agents });
    return { data: { chats }, status: 201, message: `Imported ${chats.length} chats` };
  }
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (line: unknown) => controller.enqueue(encoder.encode(`${JSON.stringify(line)}\n`));
      let last = 0;
      const onProgress = (progress: { bytes: number; chats: number }) => {
        if (Date.now() - last < PROGRESS_EVERY_MS) return;
        last = Date.now();
        send({ progress });
      };
      importUpload(userId, body, { agent, agents, onProgress })
        .then((chats) => send({ data: { chats }, message: `Imported ${chats.length} chats` }))
        .catch(async (error) => {
          send(failure(error).body);
          await drain(body);
        })
        .finally(() => controller.close());
    },
  });
  return new Response(stream, { status: 200, headers: { "content-type": "application/x-ndjson", "cache-control": "no-store" } });
});
