import type { Metadata } from "next";
import { headers } from "next/headers";
import { Providers } from "@/components/providers";
import "./globals.css";

export const metadata: Metadata = {
  title: "Retrace",
  description: "Chat with AI agents — rewind to any message, fork from any point.",
};

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // The proxy's per-request CSP nonce, for the one inline script we add (next-themes').
  const nonce = (await headers()).get("x-nonce") ?? undefined;
  return (
    <html lang="en" suppressHydrationWarning>
      <body>
        <Providers nonce={nonce}>{children}</Providers>
      </body>
    </html>
  );
}
