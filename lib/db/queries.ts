import "server-only";

/**
 * The store's public face: every read and write the app makes, one module per area behind it, and the types
 * they take. Outside lib/db, only this module, `types.ts` (the shapes the browser shares) and `connection.ts`
 * (the connection itself) are imported (tests/code-shape.test.ts).
 */
export {
  accountProfile,
  deleteAccount,
  discardSignUp,
  ensureAccountUser,
  hasInvite,
  inviteEmail,
  mergeGuest,
  proxyEmail,
  requireMergeable,
  spendInvite,
  trustedAccount,
} from "./accounts";
export { createApiToken, listApiTokens, revokeApiToken, TOKEN_PREFIX, userOfApiToken } from "./api-tokens";
export { chatRecords, exportOrder } from "./archive-export";
export { artifactBytes, listArtifacts, loadArtifact, saveArtifact } from "./artifacts";
export { appendEvents, MAX_EVENTS_PER_APPEND } from "./events";
export { forkSession } from "./forks";
export { listEvents } from "./history";
export { reapAbandonedImports } from "./import-chat";
export { importUpload } from "./import-upload";
export { labelVersion } from "./labels";
export { rewindForMessage, rewindSession } from "./rewind";
export { searchChats } from "./search";
export { createSession, deleteSession, getSession, listSessions, renameSession, sessionAgent } from "./sessions";
export { continueShared } from "./share-fork";
export { createShare, listShares, revokeShare, sharedFile, sharedVersion } from "./shares";
export { currentState, setAppState } from "./state";
export { countTasks, getTask, getTaskAndTurn, listTasks, requireTask, saveTask } from "./tasks";
export { addTodo, listTodos, MAX_TODOS, removeTodo, TODO_LENGTH, type Todo } from "./todos";
export { readTree } from "./tree";
export { appendTurnEvents, beginDecision, beginTurn, endTurn, historyAt, type TurnWriter } from "./turn-writes";
export { reapAbandonedTurns, renewTurn, requestCancel, runningTurnOf } from "./turns";
export { FileTooLargeError, openUpload, readBlob, reapBlobs, removeUpload, storeUpload } from "./uploads";
export { createUser } from "./users";
export { compareVersions, listVersions, switchSession } from "./versions";
