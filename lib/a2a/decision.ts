import type { Message as CoreMessage } from "@a2a-js/sdk";
import { z } from "zod";
import type { Decision } from "@/lib/session/tools";
import { malformed } from "./errors";

const reason = z.string().max(2_000);
/**
 * kagent's decision data part (docs/api.md, "Tool approval"): approve or reject every waiting call, or decide
 * each by its call id (`batch`); reasons for rejections; Retrace's `retrace_always_allow` also allows the
 * approved tools for the rest of the chat.
 */
const decisionData = z
  .looseObject({
    decision_type: z.enum(["approve", "reject", "batch"]),
    decisions: z.record(z.string(), z.enum(["approve", "reject"])).optional(),
    rejection_reason: reason.optional(),
    rejection_reasons: z.record(z.string(), reason).optional(),
    retrace_always_allow: z.boolean().optional(),
  })
  .refine((d) => d.decision_type !== "batch" || d.decisions !== undefined, "a batch decision needs decisions by call id");

/** The decision a message carries in a data part with `decision_type`, checked; null when it carries none. */
export function decisionOf(message: CoreMessage): Decision | null {
  const data = message.parts
    .map((p) => (p.content?.$case === "data" ? (p.content.value as unknown) : undefined))
    .find((v): v is { decision_type: unknown } => typeof v === "object" && v !== null && "decision_type" in v);
  if (!data) return null;
  const parsed = decisionData.safeParse(data);
  if (!parsed.success) throw malformed(z.prettifyError(parsed.error));
  const { decision_type, decisions, rejection_reason, rejection_reasons, retrace_always_allow } = parsed.data;
  const always = retrace_always_allow ? { always_allow: true } : {};
  if (decision_type === "batch")
    return { decision_type, decisions: decisions ?? {}, ...(rejection_reasons ? { rejection_reasons } : {}), ...always };
  return {
    decision_type,
    ...(rejection_reason ? { rejection_reason } : {}),
    ...(rejection_reasons ? { rejection_reasons } : {}),
    ...always,
  };
}
