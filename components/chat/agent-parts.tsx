import { FileText, Wrench } from "lucide-react";
import { messageText } from "@/lib/task/convert";
import type { Message } from "@/lib/task/types";
import { Markdown } from "./markdown";

function pretty(value: unknown) {
  return JSON.stringify(value, null, 2);
}

/** A function call and its result as one collapsible block. */
export function ToolBlock({ name, args, response }: { name: string; args?: unknown; response?: unknown }) {
  return (
    <details className="group my-2 rounded-lg border border-zinc-200 text-sm dark:border-zinc-800">
      <summary className="flex cursor-pointer items-center gap-2 px-3 py-2 text-zinc-600 select-none dark:text-zinc-400">
        <Wrench className="size-3.5" aria-hidden />
        <span className="font-mono">{name}</span>
        <span className="text-xs text-zinc-400">{response === undefined ? "running…" : "done"}</span>
      </summary>
      <div className="space-y-2 border-t border-zinc-200 px-3 py-2 dark:border-zinc-800">
        <div>
          <div className="text-xs font-medium text-zinc-500">Arguments</div>
          <pre className="overflow-x-auto font-mono text-xs">{pretty(args ?? {})}</pre>
        </div>
        {response !== undefined && (
          <div>
            <div className="text-xs font-medium text-zinc-500">Result</div>
            <pre className="overflow-x-auto font-mono text-xs">{pretty(response)}</pre>
          </div>
        )}
      </div>
    </details>
  );
}

function ArtifactChip({ sessionId, filename, version }: { sessionId: string; filename: string; version: number }) {
  return (
    <a
      href={`/api/sessions/${sessionId}/artifacts/${encodeURIComponent(filename)}?version=${version}`}
      target="_blank"
      rel="noopener noreferrer"
      className="mr-2 inline-flex items-center gap-1.5 rounded-full border border-zinc-300 px-2.5 py-1 text-xs hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800"
    >
      <FileText className="size-3.5" aria-hidden />
      {filename} · v{version}
    </a>
  );
}

type Block = { key: string } & (
  | { kind: "text"; text: string; interrupted?: boolean; error?: string }
  | { kind: "tool"; id: string; name: string; args?: unknown; response?: unknown }
);

/** Folds an agent's messages into text and tool blocks (a call and its response share one block). */
function blocks(messages: Message[]): Block[] {
  const out: Block[] = [];
  for (const m of messages) {
    const meta = m.metadata ?? {};
    for (const [index, part] of m.parts.entries()) {
      const key = `${m.messageId}:${index}`;
      if (part.kind === "text") {
        out.push({
          key,
          kind: "text",
          text: part.text,
          interrupted: Boolean(meta.kagent_interrupted),
          error: meta.kagent_error as string | undefined,
        });
      } else if (part.kind === "data") {
        const data = part.data as { id?: string; name?: string; args?: unknown; response?: unknown };
        const type = part.metadata?.kagent_type;
        if (type === "function_call") out.push({ key, kind: "tool", id: data.id ?? key, name: data.name ?? "tool", args: data.args });
        if (type === "function_response") {
          const call = out.find(
            (b): b is Extract<Block, { kind: "tool" }> => b.kind === "tool" && b.id === data.id && b.response === undefined,
          );
          if (call) call.response = data.response ?? {};
          else out.push({ key, kind: "tool", id: data.id ?? key, name: data.name ?? "tool", response: data.response ?? {} });
        }
      }
    }
  }
  return out;
}

/** What "Copy" on an agent reply copies: its text (Markdown as written), without tool blocks. */
export function replyText(messages: Message[]): string {
  return messages
    .map((m) => messageText(m).trim())
    .filter(Boolean)
    .join("\n\n");
}

export function AgentParts({ sessionId, messages, partial }: { sessionId: string; messages: Message[]; partial?: string }) {
  const artifacts = messages.flatMap((m) => Object.entries((m.metadata?.kagent_artifact_delta ?? {}) as Record<string, number>));
  return (
    <>
      {blocks(messages).map((block) =>
        block.kind === "tool" ? (
          <ToolBlock key={block.key} name={block.name} args={block.args} response={block.response} />
        ) : block.error ? (
          <p
            key={block.key}
            role="alert"
            className="my-2 rounded-lg border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-700 dark:border-red-900 dark:bg-red-950 dark:text-red-300"
          >
            {block.error}
          </p>
        ) : (
          <div key={block.key}>
            <Markdown text={block.text} />
            {block.interrupted && <p className="text-xs text-zinc-500 italic">Interrupted</p>}
          </div>
        ),
      )}
      {partial ? <Markdown text={partial} /> : null}
      {artifacts.length > 0 && (
        <div className="mt-2">
          {artifacts.map(([filename, version]) => (
            <ArtifactChip key={`${filename}@${version}`} sessionId={sessionId} filename={filename} version={version} />
          ))}
        </div>
      )}
    </>
  );
}
