import type { NextConfig } from "next";
import { MAX_BODY_BYTES } from "./lib/api/limits";

const nextConfig: NextConfig = {
  // Separate build dirs let several dev servers share one checkout (tests, benches).
  distDir: process.env.NEXT_DIST_DIR || ".next",
  serverExternalPackages: ["better-sqlite3", "@opentelemetry/api", "@opentelemetry/sdk-node"],
  allowedDevOrigins: ["127.0.0.1"],
  poweredByHeader: false,
  // kagent's UI posts to `/api/a2a/{namespace}/{agent}/`: answered as posted, not redirected (proxy.ts redirects the rest).
  skipTrailingSlashRedirect: true,
  experimental: {
    serverActions: { bodySizeLimit: MAX_BODY_BYTES },
    // The proxy checks action bodies (lib/api/page-post.ts). Next.js cuts what it hands the proxy
    // at this size, dropping the chunk that crosses it, so leave a margin far above one chunk.
    proxyClientMaxBodySize: MAX_BODY_BYTES + 1024 * 1024,
  },
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "Referrer-Policy", value: "same-origin" },
        ],
      },
      {
        // Share links (app/s): never indexed, and the token never leaves in a Referer.
        source: "/s/:path*",
        headers: [
          { key: "X-Robots-Tag", value: "noindex, nofollow" },
          { key: "Referrer-Policy", value: "no-referrer" },
          { key: "Cache-Control", value: "private, no-store" },
        ],
      },
    ];
  },
};

export default nextConfig;
