"use client";

import { Cpu, LoaderCircle, RefreshCw } from "lucide-react";
import { messageText } from "@/lib/task/convert";
import { invocationIdOf } from "@/lib/task/metadata";
import type { Task, TaskState } from "@/lib/task/types";
import { cn } from "../../ui/cn";
import { Menu, MenuItem, SubMenu } from "../../ui/menu";
import { filesOf, resentFiles } from "../attachments/attachment-chips";
import { VersionPager } from "../history/version-pager";
import { AgentParts, replyText } from "./agent-parts";
import { ActionsButton, ActionsRow, about, CopyAction } from "./message-actions";
import { siblingsOf } from "./turn-rows";
import { factsLine, priceLine, turnFacts } from "./usage-format";
import type { TurnActions } from "./use-turn-actions";
import { UserMessage } from "./user-message";

/** The states a task never leaves. */
const ENDED: TaskState[] = ["completed", "canceled", "failed", "rejected"];

/** One invocation: the user's message and everything the agent answered. */
export function TurnView({
  sessionId,
  task,
  partial,
  stopped,
  reconnecting,
  isLast,
  disabled,
  actions,
  rewound,
}: {
  sessionId: string;
  task: Task;
  /** Text streamed since the agent's last message (the live turn only). */
  partial?: string;
  /** The live turn was stopped and its cancel is on its way. */
  stopped?: boolean;
  /** The live turn's connection dropped; it is followed again once back online. */
  reconnecting?: boolean;
  isLast: boolean;
  disabled: boolean;
  actions?: TurnActions;
  rewound?: boolean;
}) {
  const [user, ...agent] = task.history ?? [];
  const invocationId = invocationIdOf(task);
  const failed = task.status.state === "failed" && !agent.some((m) => m.metadata?.kagent_error);
  const live = partial !== undefined || stopped;
  // Only the chat's last turn can be decided: a rewind or a later turn leaves its waiting calls never run.
  const decidable = isLast && !rewound && !disabled && task.status.state === "input-required";
  // A copy's waiting turn (a fork's, an import's) is stored canceled: no decision can come there any more.
  const ended = ENDED.includes(task.status.state);
  const siblings = rewound || !actions ? null : siblingsOf(task);
  const pager = siblings && actions && (
    <VersionPager siblings={siblings} disabled={disabled} onSwitch={actions.switchTo} onCompare={actions.compare} />
  );
  const facts = turnFacts(task);
  const userText = user ? messageText(user) : "";
  const author = (agent.find((m) => m.metadata?.kagent_author)?.metadata?.kagent_author ??
    task.metadata?.kagent_agent ??
    "The agent") as string;
  return (
    <section
      data-testid={rewound ? "rewound-turn" : "turn"}
      aria-label={rewound ? "Rewound turn" : undefined}
      className={cn("space-y-2", rewound && "opacity-45 grayscale")}
    >
      {/* Who said what, for a screen reader's heading navigation. */}
      {user && <h2 className="sr-only">You said:</h2>}
      {user && (
        <UserMessage
          message={user}
          disabled={disabled || Boolean(rewound)}
          actions={rewound ? undefined : actions}
          pager={siblings?.regenerations ? undefined : pager}
        />
      )}
      {(agent.length > 0 || partial || failed || stopped) && <h2 className="sr-only">{author} said:</h2>}
      {(agent.length > 0 || partial || failed || stopped) && (
        <div data-testid="agent-message" className="group relative">
          <AgentParts
            sessionId={sessionId}
            messages={agent}
            partial={partial}
            rewound={rewound}
            ended={ended}
            decide={decidable && actions ? (data) => actions.decide(task, data) : undefined}
          />
          {failed && task.status.message && (
            <p role="alert" className="text-sm text-red-600 dark:text-red-400">
              {messageText(task.status.message)}
            </p>
          )}
          {stopped && <p className="text-xs text-zinc-500 italic">Stopped</p>}
          {agent.length > 0 && factsLine(facts) && (
            <p
              data-testid="reply-facts"
              className="mt-1 text-xs text-zinc-500 tabular-nums dark:text-zinc-400"
              title={
                facts.usage ? `${facts.usage.prompt_token_count} prompt + ${facts.usage.candidates_token_count} reply tokens` : undefined
              }
            >
              <span className="sr-only">Written by </span>
              {factsLine(facts)}
            </p>
          )}
          {reconnecting && (
            <p className="flex items-center gap-1.5 text-xs text-amber-700 dark:text-amber-400">
              <LoaderCircle className="size-3.5 animate-spin" aria-hidden />
              Connection lost — reconnecting…
            </p>
          )}
          {!live && agent.length > 0 && (
            <ActionsRow pager={siblings?.regenerations ? pager : undefined}>
              <CopyAction text={() => replyText(agent)} of={about(userText, true)} />
              {isLast && !rewound && actions && invocationId && user && (
                <Menu align="start" trigger={<ActionsButton disabled={disabled} of={about(userText, true)} />}>
                  <MenuItem
                    icon={<RefreshCw className="size-4" />}
                    description="Rewind this turn and ask the same again"
                    onSelect={() =>
                      actions.resend(invocationId, userText, "regenerate", resentFiles(filesOf(user)), facts.model ?? undefined)
                    }
                  >
                    Regenerate
                  </MenuItem>
                  {actions.models.length > 1 && (
                    <SubMenu label="Regenerate with…" icon={<Cpu className="size-4" />}>
                      {actions.models.map((m) => (
                        <MenuItem
                          key={m.name}
                          description={m.name === facts.model ? "wrote this reply" : m.price && priceLine(m.price)}
                          onSelect={() => actions.resend(invocationId, userText, "regenerate", resentFiles(filesOf(user)), m.name)}
                        >
                          {m.name}
                        </MenuItem>
                      ))}
                    </SubMenu>
                  )}
                </Menu>
              )}
            </ActionsRow>
          )}
        </div>
      )}
    </section>
  );
}
