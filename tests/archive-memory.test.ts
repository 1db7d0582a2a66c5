/**
 * An import's memory stays bounded whatever the upload's size: a generated archive (IMPORT_TEST_MB, 24 by
 * default; `npx tsx bench/import-memory.ts --mb 1024` for the full figure) is imported in a child process
 * that samples its own memory. What it adds over its RSS before the import must not grow with the file.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { importInChild, writeArchive } from "../bench/import-memory";

const MB = Number(process.env.IMPORT_TEST_MB ?? 24);

it(`imports a ${MB} MB archive in bounded memory`, async () => {
  const dir = await mkdtemp(path.join(tmpdir(), "retrace-import-memory-"));
  try {
    const file = path.join(dir, "archive.json");
    const size = await writeArchive(file, MB);
    const figures = await importInChild(file, dir);
    expect(figures.bytes).toBe(size);
    expect(figures.chats).toBeGreaterThan(MB / 2);
    // At 1 GiB the import added 152 MiB (bench/import-memory.ts); its heap peaked at 122 MiB.
    expect(figures.peakRssMb - figures.baselineRssMb).toBeLessThan(200);
    expect(figures.peakHeapMb).toBeLessThan(192);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 180_000);
