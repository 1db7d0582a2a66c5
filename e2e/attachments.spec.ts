import { createHash } from "node:crypto";
import type { Page } from "@playwright/test";
import { guestToken } from "./support/api-client";
import { PHONE } from "./support/devices";
import { fakeModel } from "./support/fake-openai-client";
import { expect, test } from "./support/fixtures";
import { INSTANCE_A, INSTANCE_B } from "./support/instances";

/** A file as the browser gets it: its name, type and bytes. */
interface TestFile {
  name: string;
  mimeType: string;
  buffer: Buffer;
}

const text = (name: string, body: string): TestFile => ({ name, mimeType: "text/plain", buffer: Buffer.from(body) });
/** A 1×1 PNG. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");
const image = (name: string): TestFile => ({ name, mimeType: "image/png", buffer: PNG });
const sha = (data: Buffer) => createHash("sha256").update(data).digest("hex");

/** "Attach files", then the picker. */
async function pick(page: Page, files: TestFile[]) {
  const chooser = page.waitForEvent("filechooser");
  await page.getByRole("button", { name: "Attach files" }).click();
  await (await chooser).setFiles(files);
}

const asData = (files: TestFile[]) => files.map((f) => ({ name: f.name, type: f.mimeType, base64: f.buffer.toString("base64") }));
const makeTransfer = (files: { name: string; type: string; base64: string }[]) => {
  const transfer = new DataTransfer();
  for (const f of files) transfer.items.add(new File([Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0))], f.name, { type: f.type }));
  return transfer;
};

/** Files dragged over the chat (it says where they go) and dropped there. */
async function drop(page: Page, files: TestFile[]) {
  const transfer = await page.evaluateHandle(makeTransfer, asData(files));
  const zone = page.getByTestId("drop-zone");
  await zone.dispatchEvent("dragenter", { dataTransfer: transfer });
  await zone.dispatchEvent("dragover", { dataTransfer: transfer });
  await expect(page.getByText("Drop files to attach them")).toBeVisible();
  await zone.dispatchEvent("drop", { dataTransfer: transfer });
  await expect(page.getByText("Drop files to attach them")).toHaveCount(0);
}

/** Files pasted into the message box, as a screenshot is. */
async function paste(page: Page, files: TestFile[]) {
  await page.getByRole("textbox", { name: "Message" }).evaluate((box, data) => {
    const transfer = new DataTransfer();
    for (const f of data) transfer.items.add(new File([Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0))], f.name, { type: f.type }));
    box.dispatchEvent(new ClipboardEvent("paste", { clipboardData: transfer, bubbles: true, cancelable: true }));
  }, asData(files));
}

/** Waits until every chip in the composer has finished uploading. */
async function uploaded(page: Page, count: number) {
  const pending = page.getByRole("list", { name: "Files to send" }).getByTestId("pending-attachment");
  await expect(pending).toHaveCount(count);
  await expect(page.getByRole("progressbar")).toHaveCount(0);
}

for (const [device, use] of [
  ["desktop", {}],
  ["a 360 px phone", { ...PHONE, viewport: { width: 360, height: 740 } }],
] as const) {
  test.describe(`attachments on ${device}`, () => {
    test.use(use);

    test("attach by picker, drop and paste; the message shows them as chips, the viewer opens them, the agent acknowledges them", async ({
      chat,
      page,
    }) => {
      await chat.open();
      await pick(page, [text("notes.txt", "one\ntwo\nthree\n")]);
      await drop(page, [image("photo.png")]);
      await paste(page, [image("image.png")]);
      await uploaded(page, 3);
      if (device !== "desktop") {
        // On a phone they scroll in one row: wrapped, their 44 px targets would push the conversation away.
        const row = await page.getByRole("list", { name: "Files to send" }).boundingBox();
        const chip = await page.getByTestId("pending-attachment").first().boundingBox();
        expect(row?.height).toBeLessThan(2 * (chip?.height ?? 0));
      }
      // A chip's × removes it before it is sent.
      await pick(page, [text("oops.txt", "not this")]);
      await uploaded(page, 4);
      await page.getByRole("button", { name: "Remove oops.txt" }).click();
      await uploaded(page, 3);

      await chat.composer.fill("look at these");
      await chat.send.click();
      await chat.waitForTurnEnd();
      const message = chat.userMessage("look at these");
      await expect(message.getByTestId("attachment-chip")).toHaveText([/notes\.txt/, /photo\.png/, /image\.png/]);
      await expect(chat.agentMessages().last()).toContainText("I received 3 files: notes.txt (text, 3 lines, 14 B)");
      await expect(page.getByRole("list", { name: "Files to send" })).toHaveCount(0);

      await message.getByRole("button", { name: "Open notes.txt" }).click();
      const viewer = page.getByRole("dialog", { name: "notes.txt" });
      await expect(viewer.getByTestId("file-text")).toHaveText("one\ntwo\nthree\n");
      await viewer.getByRole("button", { name: "Close" }).click();
      await message.getByRole("button", { name: "Open photo.png" }).click();
      const img = page.getByRole("dialog", { name: "photo.png" }).getByRole("img", { name: "photo.png" });
      await expect(img).toBeVisible();
      expect(await img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBe(1);
      await page.keyboard.press("Escape");

      // They are files of the chat, and stay after a reload.
      await page.reload();
      await expect(chat.userMessage("look at these").getByTestId("attachment-chip")).toHaveCount(3);
    });
  });
}

test("a send refused because another tab changed the chat keeps its files in the composer, and sends them next", async ({ chat, page }) => {
  await chat.open();
  await chat.sendMessage("set color to red");
  await chat.sendMessage("set color to blue");
  const id = chat.sessionId();
  const tasks = await (await page.request.get(`/api/sessions/${id}/tasks`)).json();
  const blue = tasks.data[1].metadata.kagent_invocation_id;
  expect((await page.request.post(`/api/sessions/${id}/rewind`, { data: { rewind_before_invocation_id: blue } })).status()).toBe(200);

  await pick(page, [text("kept.txt", "still here")]);
  await uploaded(page, 1);
  await chat.composer.fill("with a file");
  await chat.send.click();
  await expect(chat.toast(/changed in another tab or window/)).toBeVisible();
  await chat.waitForTurnEnd();
  await expect(chat.composer).toHaveValue("with a file");
  await uploaded(page, 1);
  await expect(page.getByRole("list", { name: "Files to send" })).toContainText("kept.txt");

  await chat.send.click();
  await chat.waitForTurnEnd();
  await expect(chat.userMessage("with a file").getByTestId("attachment-chip")).toHaveText([/kept\.txt/]);
});

test.describe("attachments under rewind, undo and fork", () => {
  test("a rewind before the turn removes its files from the chat and the state panel, undo brings them back, a fork after it keeps them", async ({
    chat,
    page,
  }) => {
    await chat.open();
    await pick(page, [text("report.txt", "quarterly figures")]);
    await uploaded(page, 1);
    await chat.composer.fill("here is the report");
    await chat.send.click();
    await chat.waitForTurnEnd();
    await chat.sendMessage("set color to red");
    await expect(chat.fileRow("report.txt")).toBeVisible();

    await chat.messageAction("here is the report", "Rewind to here");
    await chat.expectUserMessages([]);
    await expect(chat.fileRow("report.txt")).toHaveCount(0);
    await chat
      .toast(/Rewound 2 turns/)
      .getByRole("button", { name: "Undo" })
      .click();
    await chat.expectUserMessages(["here is the report", "set color to red"]);
    await expect(chat.fileRow("report.txt")).toBeVisible();
    await expect(chat.userMessage("here is the report").getByTestId("attachment-chip")).toHaveText([/report\.txt/]);

    const sourceId = chat.sessionId();
    await chat.messageAction("set color to red", "Fork chat from here");
    await expect(page).not.toHaveURL(new RegExp(sourceId));
    await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
    await chat.expectUserMessages(["here is the report"]);
    await expect(chat.fileRow("report.txt")).toBeVisible();
    await chat.userMessage("here is the report").getByRole("button", { name: "Open report.txt" }).click();
    await expect(page.getByRole("dialog", { name: "report.txt" }).getByTestId("file-text")).toHaveText("quarterly figures");
  });

  test("a message carries at most 10 files: more are refused with a toast", async ({ chat, page }) => {
    await chat.open();
    await pick(
      page,
      Array.from({ length: 11 }, (_, i) => text(`f${i}.txt`, `${i}`)),
    );
    await expect(chat.toast("A message can carry at most 10 files")).toBeVisible();
    await uploaded(page, 10);
  });
});

test.describe("a model's attachments", () => {
  test("the fake model receives the upload's bytes; after a rewind before the turn, none", async ({ chat, page }) => {
    await fakeModel.reset(page.request);
    await chat.open();
    await chat.chooseAgent("assistant");
    await pick(page, [image("dot.png")]);
    await uploaded(page, 1);
    await chat.composer.fill("what is in this picture?");
    await chat.send.click();
    await chat.waitForTurnEnd();
    await expect(chat.agentMessages().last()).toContainText("and 1 file");
    const [first] = await fakeModel.requests(page.request);
    expect(first.files).toEqual([{ type: "image_url", mediaType: "image/png", filename: null, size: PNG.length, sha256: sha(PNG) }]);

    await chat.sendMessage("and now?");
    expect((await fakeModel.requests(page.request)).at(-1)?.files.map((f) => f.sha256)).toEqual([sha(PNG)]);
    await chat.messageAction("what is in this picture?", "Rewind to here");
    await chat.expectUserMessages([]);
    await fakeModel.reset(page.request);
    await chat.sendMessage("anything attached?");
    const [after] = await fakeModel.requests(page.request);
    expect(after.files).toEqual([]);
    expect(JSON.stringify(after.body)).not.toContain(PNG.toString("base64"));
  });
});

test.describe("two instances on one PostgreSQL", () => {
  test("an upload on instance A is sent from instance B", async () => {
    const token = await guestToken(INSTANCE_A);
    const data = Buffer.from("written on A, read on B\n");
    const uploadedOnA = await fetch(`${INSTANCE_A}/api/uploads?filename=shared.txt`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "text/plain" },
      body: data,
    });
    expect(uploadedOnA.status).toBe(201);
    const { data: upload } = (await uploadedOnA.json()) as { data: { id: string; sha256: string } };
    expect(upload.sha256).toBe(sha(data));
    const message = {
      kind: "message",
      role: "user",
      messageId: crypto.randomUUID(),
      parts: [
        { kind: "text", text: "from B" },
        { kind: "file", file: { uri: `/api/uploads/${upload.id}`, name: "shared.txt" } },
      ],
    };
    const sentOnB = await fetch(`${INSTANCE_B}/api/a2a/demo`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params: { message } }),
    });
    const { result } = (await sentOnB.json()) as {
      result: { contextId: string; history: { parts: { kind: string; text?: string; file?: { uri: string } }[] }[] };
    };
    expect(result.history.at(-1)?.parts[0].text).toContain("I received **shared.txt** (text, 1 line, 24 B)");
    const uri = result.history[0].parts[1].file?.uri ?? "";
    expect(uri.startsWith(`${INSTANCE_B}/api/sessions/${result.contextId}/artifacts/shared.txt`)).toBe(true);
    const readOnA = await fetch(uri.replace(INSTANCE_B, INSTANCE_A), { headers: { authorization: `Bearer ${token}` } });
    expect(await readOnA.text()).toBe(data.toString());
  });
});
