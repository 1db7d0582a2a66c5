"use client";

import { Dialog } from "radix-ui";
import { useEffect, useState } from "react";
import { shownLeaf } from "@/lib/session/tree";
import { SheetHeader } from "../../ui/sheet-header";
import { focusOpener, type OpenedSheet } from "../../ui/use-page-dialog";
import { useTreeQuery } from "../queries";

type MapViewModule = typeof import("./map-view");
let mapView: Promise<MapViewModule> | null = null;
const loadMapView = () => {
  mapView ??= import("./map-view");
  return mapView;
};

/**
 * The map's code (React Flow), loaded once the chat has settled. Not `next/dynamic`: a lazy component suspends
 * on its first render, and React holds a suspended view back some 300 ms before showing it.
 */
function useMapView(open: boolean) {
  const [view, setView] = useState<MapViewModule["default"] | null>(null);
  useEffect(() => {
    let live = true;
    const load = () => void loadMapView().then((m) => live && setView(() => m.default));
    if (open) load();
    const idle = window.requestIdleCallback?.(load) ?? window.setTimeout(load, 2000);
    return () => {
      live = false;
      (window.cancelIdleCallback ?? window.clearTimeout)(idle);
    };
  }, [open]);
  return view;
}

function Status({ text, alert = false }: { text: string; alert?: boolean }) {
  return (
    <p role={alert ? "alert" : undefined} className={alert ? "p-4 text-sm text-red-600 dark:text-red-400" : "p-4 text-sm text-zinc-500"}>
      {text}
    </p>
  );
}

/**
 * Map: the chat's whole tree of turns in a sheet (the full screen on a phone). Clicking a turn closes it and
 * shows that version, a switch undoable like any rewind (as History's Restore does).
 */
export function MapPanel({
  sessionId,
  busy,
  onShow,
  onCompare,
  sheet,
}: {
  sessionId: string;
  busy: boolean;
  onShow: (invocationId: string) => void;
  onCompare: (invocationId: string) => void;
  sheet: OpenedSheet;
}) {
  const { open, onOpenChange } = sheet;
  // When it last opened: the map opens on the chat as it is, and a tree kept from an earlier opening may show
  // another version as current.
  const [openedAt, setOpenedAt] = useState(0);
  const [wasOpen, setWasOpen] = useState(open);
  if (open !== wasOpen) {
    setWasOpen(open);
    if (open) setOpenedAt(Date.now());
  }
  const tree = useTreeQuery(sessionId, open);
  const fresh = tree.data && tree.dataUpdatedAt >= openedAt && openedAt > 0 ? tree.data : null;
  const MapView = useMapView(open);
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/20" />
        <Dialog.Content
          // The sheet holds focus until the map has drawn the turn shown now, which takes it.
          onOpenAutoFocus={(e) => {
            e.preventDefault();
            const content = e.currentTarget as HTMLElement;
            if (!content.contains(document.activeElement)) content.focus();
          }}
          onCloseAutoFocus={focusOpener(sheet)}
          className="fixed inset-0 z-50 flex flex-col bg-white shadow-xl sm:left-auto sm:w-[min(64rem,85vw)] dark:bg-zinc-950"
        >
          <SheetHeader title="Map" />
          <Dialog.Description className="px-4 pt-2 pb-1 text-xs text-zinc-500">
            Every turn of this chat: solid ones are shown now, dashed ones rewound. Click one, or press Enter, to show that version with its
            state and files; its tag names or pins it.
          </Dialog.Description>
          {tree.isError ? (
            <Status text={tree.error.message} alert />
          ) : !fresh || !MapView ? (
            <Status text="Loading…" />
          ) : fresh.turns.length === 0 ? (
            <Status text="No turns yet." />
          ) : (
            <MapView
              // A newer tree whose turn shown now is another (a turn ended meanwhile) opens anew, on that turn.
              key={shownLeaf(fresh)}
              sessionId={sessionId}
              tree={fresh}
              busy={busy}
              onShow={(invocationId) => {
                onOpenChange(false);
                onShow(invocationId);
              }}
              onCompare={(invocationId) => {
                onOpenChange(false);
                onCompare(invocationId);
              }}
            />
          )}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
