/** Shapes the API returns; shared by the store and the browser. */
import type { RewindReason } from "@/lib/session/rewind";
import type { Snippet } from "@/lib/session/search-text";
import type { State } from "@/lib/session/types";

export interface SessionSummary {
  id: string;
  user_id: string;
  agent: string;
  name: string;
  created_at: string;
  updated_at: string;
  forked_from_session_id: string | null;
  forked_before_invocation_id: string | null;
}

export interface SessionRecord extends SessionSummary {
  /** ADK's merged view: session keys plus the app:/user: keys that apply, with their prefixes. */
  state: State;
  forked_from_name: string | null;
  forks: { id: string; name: string; forked_before_invocation_id: string | null }[];
  /** The task of the turn running in the chat now (on any app instance), for a page that opens mid-turn. */
  running_task_id: string | null;
}

export interface ArtifactInfo {
  filename: string;
  version: number;
  mime_type: string;
  size: number;
  /** Set when a rewind brought this content back: the version it first had. */
  restored_from: number | null;
}

/** One head of a chat (docs/semantics.md, "Versions"), newest first in `GET …/versions`. */
export interface VersionInfo {
  /** Restore this head by rewinding before this marker; null for the current head. */
  marker_invocation_id: string | null;
  timestamp: string;
  turns: number;
  last_user_text: string | null;
  /** The head's last turn; null when it has none. */
  last_invocation_id: string | null;
  /** That turn's place among its versions (docs/semantics.md, "Versions"); null when it has no others. */
  version: { index: number; count: number } | null;
  /** Why the head ended (its marker's reason); null for the current head. */
  reason: RewindReason | null;
  /** The user's name and pin on the head's last turn (lib/db/labels.ts). */
  label: string | null;
  pinned: boolean;
}

/** A message a search found, in one chat that shows it (docs/api.md, "Search"). */
export interface SearchHit {
  session_id: string;
  session_name: string;
  invocation_id: string;
  /** The id the chat shows for the event (a fork shows its source's events under new ids). */
  event_id: string;
  author: string;
  timestamp: string;
  /** Not in the chat's current view: opening it means switching to the version that holds it. */
  rewound: boolean;
  snippet: Snippet;
}

/** A file uploaded to attach to a message (docs/api.md, "Uploads"). */
export interface UploadInfo {
  id: string;
  filename: string;
  mime_type: string;
  size: number;
  /** Hex SHA-256 of its bytes. */
  sha256: string;
  created_at: string;
  /** Attach it to a message before then; unattached, it is gone after. */
  expires_at: string;
}

/** A personal API token as its owner sees it: never the token itself, shown once when created. */
export interface ApiToken {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
}

/** A share link as its chat's owner sees it: never the token, shown once when created. */
export interface ShareInfo {
  id: string;
  created_at: string;
  include_tools: boolean;
  include_files: boolean;
}
