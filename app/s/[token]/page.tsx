import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";
import { SharedChat } from "@/components/shared/shared-chat";
import { currentViewer, signInOptions } from "@/lib/accounts/viewer";
import { shareToken } from "@/lib/api/schemas";
import { sharedVersion } from "@/lib/db/queries";
import { sharedTurns } from "@/lib/session/share-view";

/** Read on every request: a revoked link must be gone at once, on every instance. */
export const dynamic = "force-dynamic";

const load = cache(async (token: string) => (shareToken.safeParse(token).success ? sharedVersion(token) : null));

export async function generateMetadata({ params }: { params: Promise<{ token: string }> }): Promise<Metadata> {
  const shared = await load((await params).token);
  return {
    title: shared ? `${shared.name} · shared on Retrace` : "Link not found",
    robots: { index: false, follow: false, nocache: true },
    referrer: "no-referrer",
  };
}

/** A share link (docs/api.md, "Share links"): one version of a chat, read-only, for anyone holding the link. */
export default async function SharedPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const shared = await load(token);
  if (!shared) notFound();
  const viewer = await currentViewer();
  return (
    <SharedChat
      token={token}
      name={shared.name}
      agent={shared.agent}
      sharedAt={shared.sharedAt}
      turns={sharedTurns(shared.events)}
      files={[...shared.files.keys()].sort()}
      signedIn={viewer.kind !== "guest"}
      signInOptions={signInOptions()}
    />
  );
}
