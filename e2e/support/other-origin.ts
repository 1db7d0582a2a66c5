import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A page served from another port of 127.0.0.1: the same site as the app (so the browser sends its
 * SameSite=Lax cookie along) but another origin — what a hostile app on the same host looks like.
 * The OS picks the port, so it never collides with anyone's server.
 */
export async function otherOrigin(html: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((_, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
