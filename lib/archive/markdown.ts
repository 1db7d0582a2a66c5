/** A chat's current view as Markdown: its visible turns in order, each speaker's run under one heading, tool calls and attachments as short quoted lines. */
import type { Message, Task } from "@/lib/task/types";

function partLines(message: Message): string[] {
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
  return lines;
}

export function chatMarkdown(chat: { name: string; agent: string; exportedAt: Date }, tasks: Task[]): string {
  const header = `# ${chat.name}\n\n*Exported from Retrace on ${chat.exportedAt.toISOString().slice(0, 10)} · agent \`${chat.agent}\`*\n`;
  // An agent's reply is several messages (a tool call, its result, the text): one heading for the run of them.
  const sections: { who: string; lines: string[] }[] = [];
  for (const message of tasks.flatMap((t) => t.history ?? [])) {
    const lines = partLines(message);
    if (lines.length === 0) continue;
    const who = message.role === "user" ? "You" : ((message.metadata?.kagent_author as string | undefined) ?? chat.agent);
    const last = sections.at(-1);
    if (last && last.who === who && who !== "You") last.lines.push(...lines);
    else sections.push({ who, lines });
  }
  const body = sections.map(({ who, lines }) => `### ${who}\n\n${lines.join("\n\n")}\n`);
  return `${[header, ...body].join("\n")}`;
}
