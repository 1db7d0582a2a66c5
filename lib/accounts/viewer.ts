import "server-only";
/** What the pages need to know about the person looking at them, read from the request (no database read). */
import { headers } from "next/headers";
import { config } from "@/lib/config";
import { identify } from "./identity";

export interface Viewer {
  kind: "guest" | "account" | "proxy";
  name: string | null;
  email: string | null;
}

/** How people sign in here: what the sign-in dialog offers. */
export interface SignInOptions {
  signup: "open" | "invite" | "closed";
  oidc: { provider: string; name: string } | null;
}

export async function currentViewer(): Promise<Viewer> {
  const identity = (await identify(await headers())).identity;
  if (!identity?.profile || (identity.kind !== "account" && identity.kind !== "proxy")) return { kind: "guest", name: null, email: null };
  return { kind: identity.kind, name: identity.profile.name, email: identity.profile.email };
}

export function signInOptions(): SignInOptions {
  const { signup, oidc } = config().accounts;
  return { signup, oidc: oidc ? { provider: "oidc", name: oidc.name } : null };
}
