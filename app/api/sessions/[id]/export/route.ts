import { handler, readQuery } from "@/lib/api/handler";
import { exportQuery } from "@/lib/api/schemas";
import { attachment, textStream } from "@/lib/api/stream";
import { chatMarkdown } from "@/lib/archive/markdown";
import { archiveText } from "@/lib/archive/writer";
import { chatRecords, getSession, listTasks } from "@/lib/db/queries";

/** One chat as a Retrace archive (its whole log) or as Markdown (its current view), downloaded. */
export const GET = handler<{ id: string }>(async ({ request, userId, params }) => {
  const { format } = readQuery(request, exportQuery);
  const session = await getSession(userId, params.id);
  if (format === "markdown") {
    const tasks = (await listTasks(userId, params.id)).items;
    return new Response(chatMarkdown({ name: session.name, agent: session.agent, exportedAt: new Date() }, tasks), {
      headers: { "content-type": "text/markdown; charset=utf-8", "content-disposition": attachment(session.name, "md") },
    });
  }
  async function* chats() {
    yield chatRecords(userId, params.id);
  }
  return new Response(textStream(archiveText(chats())), {
    headers: { "content-type": "application/json", "content-disposition": attachment(session.name, "retrace.json") },
  });
});
