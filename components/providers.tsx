"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { ThemeProvider, useTheme } from "next-themes";
import { useState } from "react";
import { Toaster } from "sonner";
import { TabSync } from "./chat/tab-sync";
import { Announcer } from "./ui/announcer";
import { useToastsAbove } from "./ui/toast-place";

/** Toasts at the top, where they never cover the composer (nor the text a rewind puts back in it), in the page's theme. */
function ThemedToaster() {
  const { resolvedTheme } = useTheme();
  // Below the chat header (49 px; 60 px on a touch screen, whose targets are 44 px), so a toast never covers
  // it; while the map covers the chat, at the bottom, above its details (components/ui/toast-place.ts).
  const above = useToastsAbove();
  const offset = above === null ? { top: 64 } : { bottom: above };
  return (
    <Toaster
      richColors
      closeButton
      position={above === null ? "top-center" : "bottom-center"}
      offset={offset}
      mobileOffset={above === null ? { top: 68 } : offset}
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
