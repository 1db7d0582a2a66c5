import "server-only";
import { beginDecision } from "@/lib/db/queries";
import { ValidationError } from "@/lib/errors";
import { allowDelta, confirmations, type Decision, decisionParts, type ToolConfirmation } from "@/lib/session/tools";
import { eventToMessage } from "@/lib/task/convert";
import type { Task } from "@/lib/task/types";
import { inSpan, traceTurn } from "@/lib/telemetry/trace";
import { followTurn, INSTANCE } from "./live";
import { eventsOf, runLocal, type Turn } from "./runtime";
import type { Agent } from "./types";

/**
 * The user's decision on the calls a turn waits for (docs/semantics.md, "Tools"), from any tab, instance or A2A
 * client: the first one resumes the same invocation exactly once — its decision stored with the session's lease
 * and the task back to `working` in one transaction, then each approved call made, each denied one answered so,
 * and the agent's loop continued. A repeated, late or concurrent decision changes nothing: it follows the turn
 * the first one resumed while that runs, else answers the task as it is.
 */
export async function decideTurn(opts: {
  userId: string;
  agent: Agent;
  taskId: string;
  decision: Decision;
}): Promise<Turn | { task: Task }> {
  const { userId, agent, taskId, decision } = opts;
  let answers: ToolConfirmation[] = [];
  const claimed = await inSpan("retrace.approval", { "retrace.task_id": taskId }, (link) =>
    beginDecision(userId, taskId, {
      agent: agent.name,
      owner: INSTANCE,
      decide: (pending, state, invocationId) => {
        link(invocationId);
        const read = confirmations(pending, decision);
        if (!read.ok) throw new ValidationError(read.error);
        answers = read.answers;
        return eventsOf(invocationId)("user", decisionParts(pending, answers), {}, { state_delta: allowDelta(state, pending, answers) });
      },
      working: (stored) => ({ ...stored, status: { state: "working", timestamp: new Date().toISOString() } }),
    }),
  );
  if ("asIs" in claimed) return claimed.running ? followTurn(userId, claimed.asIs) : { task: claimed.asIs };
  const invocationId = claimed.userEvent.invocation_id;
  return runLocal({
    userId,
    sessionId: claimed.sessionId,
    agent,
    task: {
      ...claimed.task,
      history: [...(claimed.task.history ?? []), eventToMessage(claimed.decision, claimed.sessionId, claimed.task.id)],
    },
    invocationId,
    event: eventsOf(invocationId),
    writer: claimed.writer,
    resume: { pending: claimed.pending, answers },
    traced: traceTurn({ agent: agent.name, sessionId: claimed.sessionId, invocationId, resumes: invocationId }),
  });
}
