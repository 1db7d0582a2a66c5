"use client";

import { FileText, Globe, Wrench } from "lucide-react";
import { useState } from "react";
import { REQUEST_CONFIRMATION, type ToolConfirmation } from "@/lib/session/tools";
import { messageText } from "@/lib/task/convert";
import type { Message } from "@/lib/task/types";
import { ApprovalCard } from "../tools/approval-card";
import { type CallDecision, decisionData } from "../tools/tool-effects";
import { Markdown } from "./markdown";

function pretty(value: unknown) {
  return JSON.stringify(value, null, 2);
}

/** Where a call stands with the user: waiting for a decision, never decided (it can no longer be), or approved or denied. */
type Approval =
  | { state: "waiting" }
  | { state: "undecided" }
  | { state: "approved"; always: boolean }
  | { state: "denied"; reason?: string };

function statusOf(response: unknown, approval?: Approval) {
  if (approval?.state === "denied") return approval.reason ? `denied: ${approval.reason}` : "denied";
  if (response !== undefined) return approval?.state === "approved" ? "approved · done" : "done";
  if (approval?.state === "undecided") return "not decided";
  return approval?.state === "waiting" ? "waiting for your decision" : "running…";
}

/**
 * A function call and its result as one collapsible block. A call that acted in the world says so; in a rewound
 * turn it says that the rewind did not undo it (docs/semantics.md, "Tools").
 */
export function ToolBlock({
  name,
  args,
  response,
  approval,
  inWorld,
  rewound,
}: {
  name: string;
  args?: unknown;
  response?: unknown;
  approval?: Approval;
  inWorld?: boolean;
  rewound?: boolean;
}) {
  return (
    <details className="group my-2 rounded-lg border border-zinc-200 text-sm dark:border-zinc-800">
      <summary className="flex cursor-pointer flex-wrap items-center gap-2 px-3 py-2 text-zinc-600 select-none dark:text-zinc-400">
        <Wrench className="size-3.5" aria-hidden />
        <span className="font-mono">{name}</span>
        <span className="text-xs text-zinc-500">{statusOf(response, approval)}</span>
        {inWorld && (
          <span
            data-testid="done-in-world"
            className={
              rewound
                ? "flex items-center gap-1 rounded-full bg-amber-100 px-2 text-xs text-amber-900 dark:bg-amber-950 dark:text-amber-200"
                : "flex items-center gap-1 text-xs text-zinc-500"
            }
          >
            <Globe className="size-3" aria-hidden />
            {rewound ? "Done in the world — not undone" : "acted outside this chat"}
          </span>
        )}
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

type Tool = {
  kind: "tool";
  id: string;
  name: string;
  args?: unknown;
  response?: unknown;
  approval?: Approval;
  /** Its response says it reached the world (an external MCP call that was made). */
  inWorld?: boolean;
};
type Block = { key: string } & ({ kind: "text"; text: string; interrupted?: boolean; error?: string } | Tool);

/**
 * Folds an agent's messages into text and tool blocks: a call and its response share one block, and ADK's
 * confirmation call and the user's answer to it become that call's approval.
 */
function blocks(messages: Message[]): Block[] {
  const out: Block[] = [];
  const tools = () => out.filter((b): b is Block & Tool => b.kind === "tool");
  /** The block each confirmation call asks about, by the confirmation's id. */
  const asking = new Map<string, Tool>();
  for (const m of messages) {
    const meta = m.metadata ?? {};
    for (const [index, part] of m.parts.entries()) {
      const key = `${m.messageId}:${index}`;
      if (part.kind === "text") {
        if (m.role === "user") continue;
        out.push({
          key,
          kind: "text",
          text: part.text,
          interrupted: Boolean(meta.kagent_interrupted),
          error: meta.kagent_error as string | undefined,
        });
        continue;
      }
      if (part.kind !== "data") continue;
      const data = part.data as { id?: string; name?: string; args?: unknown; response?: unknown };
      const type = part.metadata?.kagent_type;
      if (type === "function_call" && data.name === REQUEST_CONFIRMATION) {
        const original = (data.args as { originalFunctionCall?: { id?: string } } | undefined)?.originalFunctionCall;
        const call = tools().find((b) => b.id === original?.id);
        if (call && data.id) {
          call.approval = { state: "waiting" };
          asking.set(data.id, call);
        }
      } else if (type === "function_response" && data.name === REQUEST_CONFIRMATION) {
        const call = data.id ? asking.get(data.id) : undefined;
        const answer = data.response as ToolConfirmation | undefined;
        if (call) {
          call.approval = answer?.confirmed
            ? { state: "approved", always: Boolean(answer.payload?.always_allow) }
            : { state: "denied", reason: answer?.payload?.rejection_reason };
        }
      } else if (type === "function_call") {
        out.push({ key, kind: "tool", id: data.id ?? key, name: data.name ?? "tool", args: data.args });
      } else if (type === "function_response") {
        const inWorld = part.metadata?.retrace_executed === true;
        const call = tools().find((b) => b.id === data.id && b.response === undefined);
        if (call) Object.assign(call, { response: data.response ?? {}, inWorld });
        else out.push({ key, kind: "tool", id: data.id ?? key, name: data.name ?? "tool", response: data.response ?? {}, inWorld });
      }
    }
  }
  return out;
}

/** What the card on each waiting call sends: once every waiting call of the turn has a decision, one message with them all. */
function useDecisions(waiting: string[], decide?: (data: Record<string, unknown>) => void) {
  const [given, setGiven] = useState(new Map<string, CallDecision>());
  const record = (id: string, decision: CallDecision) => {
    const next = new Map(given).set(id, decision);
    setGiven(next);
    if (waiting.every((w) => next.has(w))) decide?.(decisionData(new Map(waiting.map((w) => [w, next.get(w) as CallDecision]))));
  };
  return { given, record };
}

/** What "Copy" on an agent reply copies: its text (Markdown as written), without tool blocks. */
export function replyText(messages: Message[]): string {
  return messages
    .map((m) => messageText(m).trim())
    .filter(Boolean)
    .join("\n\n");
}

export function AgentParts({
  sessionId,
  messages,
  partial,
  rewound,
  ended,
  decide,
}: {
  sessionId: string;
  messages: Message[];
  partial?: string;
  /** The turn is rewound: its calls that acted in the world say a rewind did not undo them. */
  rewound?: boolean;
  /** The turn's task ended: a call of it still waiting for a decision never ran, and never will. */
  ended?: boolean;
  /** Sends the decision on the turn's waiting calls; absent when they cannot be decided here (a rewound or earlier turn). */
  decide?: (data: Record<string, unknown>) => void;
}) {
  const artifacts = messages.flatMap((m) => Object.entries((m.metadata?.kagent_artifact_delta ?? {}) as Record<string, number>));
  const all = blocks(messages);
  const waiting = all.flatMap((b) => (b.kind === "tool" && b.approval?.state === "waiting" ? [b.id] : []));
  const decisions = useDecisions(waiting, decide);
  const undecided = rewound || ended;
  return (
    <>
      {all.map((block) =>
        block.kind === "tool" ? (
          <div key={block.key}>
            <ToolBlock
              name={block.name}
              args={block.args}
              response={block.response}
              approval={block.approval?.state === "waiting" && undecided ? { state: "undecided" } : block.approval}
              inWorld={block.inWorld}
              rewound={rewound}
            />
            {block.approval?.state === "waiting" &&
              (decide ? (
                <ApprovalCard
                  name={block.name}
                  args={block.args}
                  decided={decisions.given.get(block.id)}
                  disabled={false}
                  onDecide={(decision) => decisions.record(block.id, decision)}
                />
              ) : (
                <p className="text-xs text-zinc-500 italic">{undecided ? "Not decided: it never ran" : "Waiting for a decision"}</p>
              ))}
          </div>
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
