import Link from "next/link";
import { ThemeMenu } from "@/components/ui/theme-menu";

/** A share link that was revoked, or never was: said in the app's own look, with a way into the app. */
export default function SharedLinkNotFound() {
  return (
    <div className="flex min-h-dvh flex-col">
      <header className="flex items-center gap-3 border-b border-zinc-200 px-4 py-2 dark:border-zinc-800">
        <Link href="/" className="text-base font-semibold tracking-tight">
          Retrace
        </Link>
        <div className="flex-1" />
        <ThemeMenu />
      </header>
      <main className="mx-auto flex w-full max-w-md flex-1 flex-col items-center justify-center gap-3 px-4 text-center">
        <h1 className="text-xl font-semibold">Link not found</h1>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          Its owner revoked this link, or it never existed. Ask whoever sent it for a new one.
        </p>
        <Link
          href="/"
          className="mt-2 rounded-md bg-zinc-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-zinc-700 touch:py-3 dark:bg-zinc-100 dark:text-zinc-900 dark:hover:bg-zinc-300"
        >
          Start a chat
        </Link>
      </main>
    </div>
  );
}
