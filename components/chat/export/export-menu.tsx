"use client";

import { Download, FileJson, FileText } from "lucide-react";
import { Button } from "../../ui/button";
import { Menu, MenuItem } from "../../ui/menu";

/** Starts a download of `url` (the server names the file), without leaving the page. */
export function download(url: string) {
  const link = document.createElement("a");
  link.href = url;
  link.download = "";
  document.body.append(link);
  link.click();
  link.remove();
}

/** The chat's whole log as a Retrace archive, or its current view as Markdown: the items of a menu. */
export function ExportItems({ sessionId }: { sessionId: string }) {
  const url = `/api/sessions/${sessionId}/export`;
  return (
    <>
      <MenuItem
        icon={<FileJson className="size-4" />}
        description="Every version, state and file; import it again"
        onSelect={() => download(url)}
      >
        Archive (JSON)
      </MenuItem>
      <MenuItem
        icon={<FileText className="size-4" />}
        description="The conversation as it is shown now"
        onSelect={() => download(`${url}?format=markdown`)}
      >
        Markdown
      </MenuItem>
    </>
  );
}

/** "Export", a button of the chat's header. */
export function ExportMenu({ sessionId, className }: { sessionId: string; className: string }) {
  return (
    <Menu
      trigger={
        <Button className={className}>
          <Download className="size-4" aria-hidden />
          Export
        </Button>
      }
    >
      <ExportItems sessionId={sessionId} />
    </Menu>
  );
}
