import "server-only";

/** The store's public face: every read and write the app makes, one module per area behind it. */
export { artifactBytes, listArtifacts, loadArtifact, saveArtifact } from "./artifacts";
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
export { FileTooLargeError, openUpload, readBlob, reapBlobs, removeUpload, storeUpload } from "./uploads";
export { createUser } from "./users";
export { compareVersions, listVersions, switchSession } from "./versions";
