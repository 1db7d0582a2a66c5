"use client";

import { useState } from "react";
import type { ModelInfo } from "@/lib/agent/types";
import type { Task } from "@/lib/task/types";

/**
 * The model the next message runs on (docs/semantics.md, "Models, tokens and cost"): the one picked or last sent
 * with on this page, else the one the chat's last turn ran on, else the agent's first. None for an agent without models.
 */
export function useChatModel(models: ModelInfo[], tasks: Task[] | undefined) {
  const [picked, setPicked] = useState<string | null>(null);
  const known = (name: unknown): name is string => typeof name === "string" && models.some((m) => m.name === name);
  const last = tasks?.findLast((t) => t.metadata?.rewound !== true)?.metadata?.retrace_model;
  const model = known(picked) ? picked : known(last) ? last : (models[0]?.name ?? undefined);
  return { model, pick: setPicked };
}
