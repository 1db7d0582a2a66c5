/** A chat's current view as Markdown: its visible turns in order, tool calls and attachments as short quoted lines. */
import type { Message, Task } from "@/lib/task/types";

function messageMarkdown(message: Message, agent: string): string {
  const lines: string[] = [];
  for (const part of message.parts) {
    if (part.kind === "text" && part.text.trim()) lines.push(part.text.trim());
    else if (part.kind === "file")
      lines.push(`> Attached \`${part.file.name ?? "a file"}\`${part.file.mimeType ? ` (${part.file.mimeType})` : ""}`);
    else if (part.kind === "data") {
      const data = part.data as { name?: string; args?: unknown; response?: unknown };
      const call = part.metadata?.kagent_type === "function_call";
      lines.push(
        `> ${call ? "Tool call" : "Tool result"} \`${data.name ?? "tool"}\`: \`${JSON.stringify(call ? data.args : data.response) ?? ""}\``,
      );
    }
  }
  if (lines.length === 0) return "";
  const who = message.role === "user" ? "You" : ((message.metadata?.kagent_author as string | undefined) ?? agent);
  return `### ${who}\n\n${lines.join("\n\n")}\n`;
}

export function chatMarkdown(chat: { name: string; agent: string; exportedAt: Date }, tasks: Task[]): string {
  const header = `# ${chat.name}\n\n*Exported from Retrace on ${chat.exportedAt.toISOString().slice(0, 10)} · agent \`${chat.agent}\`*\n`;
  const body = tasks.flatMap((t) => (t.history ?? []).map((m) => messageMarkdown(m, chat.agent))).filter(Boolean);
  return `${[header, ...body].join("\n")}`;
}
