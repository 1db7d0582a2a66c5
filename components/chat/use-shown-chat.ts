import { usePathname } from "next/navigation";

/**
 * The id of the chat the page shows (`/chat/{id}`), or null. The pathname is null only under the Pages
 * Router, which serves nothing but the error page (pages/_error.tsx).
 */
export function useShownChatId(): string | null {
  const pathname = usePathname() ?? "";
  return pathname.startsWith("/chat/") ? pathname.slice(6) : null;
}
