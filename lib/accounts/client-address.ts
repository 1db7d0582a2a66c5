import "server-only";
/**
 * The client address sign-in rate limits count (docs/api.md, "Accounts"): the connection's own peer, or, when
 * that peer is a proxy listed in RETRACE_TRUSTED_PROXIES, the address the proxies forwarded in X-Forwarded-For
 * (read from the right, past every trusted hop). A client's own X-Forwarded-For counts for nothing: Next.js
 * keeps it as it came and gives route handlers no socket, so each instance stamps the peer on every request
 * as it arrives (Node's `http.server.request.start` diagnostics channel), under a key only this process knows.
 */
import { randomUUID } from "node:crypto";
import { subscribe } from "node:diagnostics_channel";
import type { IncomingHttpHeaders } from "node:http";
import { getIPFromHeader } from "@better-auth/core/utils/ip";
import { config } from "@/lib/config";

const PEER_HEADER = "x-retrace-peer";
/** Where the auth route hands better-auth the address it computed (advanced.ipAddress.ipAddressHeaders). */
export const CLIENT_ADDRESS_HEADER = "x-retrace-client-address";

const perProcess = globalThis as typeof globalThis & { __retracePeerKey?: string; __retracePeersWatched?: boolean };
/** A request stamped before the process made its key (or by a client) carries no key of ours. */
const peerKey = () => {
  perProcess.__retracePeerKey ??= randomUUID();
  return perProcess.__retracePeerKey;
};

/** Writes (or, without an address, removes) the peer stamp in a Node request's headers. */
export function stampPeer(headers: IncomingHttpHeaders, address: string | undefined): void {
  if (address) headers[PEER_HEADER] = `${peerKey()} ${address}`;
  else delete headers[PEER_HEADER];
}

/** Stamps every request this process's HTTP server receives with its connection's address (once per process). */
export function watchPeers(): void {
  if (perProcess.__retracePeersWatched) return;
  perProcess.__retracePeersWatched = true;
  subscribe("http.server.request.start", (message) => {
    const { request, socket } = message as { request: { headers: IncomingHttpHeaders }; socket: { remoteAddress?: string } };
    stampPeer(request.headers, socket.remoteAddress);
  });
}

function peerOf(headers: Headers): string | null {
  const [key, address] = headers.get(PEER_HEADER)?.split(" ") ?? [];
  return key === peerKey() && address ? address : null;
}

/** The client's address, or null when the request carries no stamp (then better-auth counts one shared bucket). */
export function clientAddress(headers: Headers): string | null {
  const peer = peerOf(headers);
  if (!peer) return null;
  const proxies = config().accounts.trustedProxies;
  if (proxies.length === 0) return peer;
  const chain = [headers.get("x-forwarded-for"), peer].filter(Boolean).join(",");
  // Every hop trusted (a proxy's own request) or an unreadable one: the nearest address we know.
  return getIPFromHeader(chain, { trustedProxies: proxies }) ?? peer;
}
