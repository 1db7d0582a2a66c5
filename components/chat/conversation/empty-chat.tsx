import { GitFork, History, Undo2 } from "lucide-react";

const FEATURES = [
  {
    icon: Undo2,
    name: "Rewind to here",
    what: "in a message’s ⋯ menu: the chat goes back to before it, state and files too. Undo brings it all back.",
  },
  { icon: GitFork, name: "Fork chat from here", what: "a new chat from that point; this one stays as it is." },
  {
    icon: History,
    name: "Versions",
    what: "Edit & resend and Regenerate keep every version: switch with ‹ 1 / 2 ›, or find them all in History.",
  },
];

/** A chat with no turns: what to ask the demo agent, and what a new user would not guess — nothing here is lost. */
export function EmptyChat() {
  return (
    <div className="mx-auto max-w-xl px-6 py-16 text-center text-zinc-500">
      <p className="text-lg font-medium text-zinc-800 dark:text-zinc-200">What shall we do?</p>
      <p className="mt-1 text-sm">Try “set color to red”, “save file notes.txt with content hello” or “recap”.</p>
      <ul aria-label="What you can do with a chat" className="mt-8 space-y-3 text-left text-sm">
        {FEATURES.map(({ icon: Icon, name, what }) => (
          <li key={name} className="flex gap-3">
            <Icon className="mt-0.5 size-4 shrink-0 text-zinc-400" aria-hidden />
            <p>
              <strong className="font-medium text-zinc-800 dark:text-zinc-200">{name}</strong> — {what}
            </p>
          </li>
        ))}
      </ul>
    </div>
  );
}
