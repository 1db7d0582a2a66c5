import { readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { expect, it } from "vitest";
import { Spool } from "@/lib/archive/spool";

const spoolDirs = async () => (await readdir(tmpdir())).filter((name) => name.startsWith("retrace-spool-"));

it("keeps a chat's records in memory up to its budget, the rest on disk, and gives them back in order", async () => {
  const before = await spoolDirs();
  const spool = new Spool<{ n: number; text: string }>(1000);
  for (let n = 0; n < 500; n++) await spool.add({ n, text: `record ${n}\nwith a newline` }, n * 10);
  expect((await spoolDirs()).length).toBe(before.length + 1);
  const back: number[] = [];
  for await (const record of spool.records()) back.push(record.n);
  expect(back).toEqual(Array.from({ length: 500 }, (_, n) => n));
  await spool.dispose();
  expect(await spoolDirs()).toEqual(before);
});
