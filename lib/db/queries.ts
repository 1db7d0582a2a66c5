import "server-only";

/** The store's public face: every read and write the app makes, one module per area behind it. */
export { listArtifacts, loadArtifact, saveArtifact } from "./artifacts";
export { appendEvents, MAX_EVENTS_PER_APPEND } from "./events";
export { forkSession } from "./forks";
export { listEvents } from "./history";
export { reapAbandonedImports } from "./import-chat";
export { labelVersion } from "./labels";
export { rewindForMessage, rewindSession } from "./rewind";
export { searchChats } from "./search";
export { createSession, deleteSession, getSession, listSessions, renameSession, sessionAgent } from "./sessions";
export { currentState, setAppState } from "./state";
export { countTasks, getTask, getTaskAndTurn, listTasks, requireTask, saveTask } from "./tasks";
export { addTodo, listTodos, MAX_TODOS, removeTodo, TODO_LENGTH } from "./todos";
export { readTree } from "./tree";
export { appendTurnEvents, beginDecision, beginTurn, endTurn, historyAt } from "./turn-writes";
export { reapAbandonedTurns, renewTurn, requestCancel, runningTurnOf } from "./turns";
export { createUser } from "./users";
export { listVersions, switchSession } from "./versions";
