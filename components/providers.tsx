"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { ThemeProvider, useTheme } from "next-themes";
import { useState } from "react";
import { Toaster } from "sonner";
import { TabSync } from "./chat/tab-sync";
import { Announcer } from "./ui/announcer";

/** Toasts at the top, where they never cover the composer (nor the text a rewind puts back in it), in the page's theme. */
function ThemedToaster() {
  const { resolvedTheme } = useTheme();
  // Below the chat header (49 px; on phones, 109 px: its controls take a second row), so a toast never covers them.
  return (
    <Toaster
      richColors
      closeButton
      position="top-center"
      offset={{ top: 64 }}
      mobileOffset={{ top: 116 }}
      theme={resolvedTheme === "dark" ? "dark" : "light"}
    />
  );
}

export function Providers({ children, nonce }: { children: React.ReactNode; nonce?: string }) {
  const [client] = useState(
    () => new QueryClient({ defaultOptions: { queries: { staleTime: 5_000, refetchOnWindowFocus: false, retry: 1 } } }),
  );
  return (
    <ThemeProvider nonce={nonce} attribute="class" defaultTheme="system" enableSystem disableTransitionOnChange>
      <QueryClientProvider client={client}>
        {children}
        <TabSync />
        <Announcer />
        <ThemedToaster />
      </QueryClientProvider>
    </ThemeProvider>
  );
}
