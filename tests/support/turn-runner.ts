/**
 * An app instance in a box: starts one slow demo-agent turn in a session and prints "started <taskId>",
 * then keeps running it (until the test kills this process, or the turn ends: "ended <state>").
 * Usage: node --import tsx --import ./scripts/server-context.mjs tests/support/turn-runner.ts <userId> <sessionId>
 */
import { getAgent } from "@/lib/agent/registry";
import { startTurn } from "@/lib/agent/runtime";

const [userId, sessionId] = process.argv.slice(2);
const turn = await startTurn({ userId, sessionId, agent: getAgent("demo"), text: "tell me what you can do" });
console.log(`started ${turn.taskId}`);
const final = await turn.done;
console.log(`ended ${final.status.state}`);
process.exit(0);
