/**
 * `npx tsx --import ./scripts/server-context.mjs bench/import-memory.ts --mb 1024` (`--db postgres` for PostgreSQL): writes a Retrace archive of
 * about that size (chats of ~1 MB: 400 turns, a rewind, two files, tasks), then imports it in a child
 * process that samples its own memory, and prints the peak RSS and heap, the time and the rate.
 * tests/archive-memory.test.ts runs the same on a small file.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ChatRecord } from "@/lib/archive/format";
import { archiveText } from "@/lib/archive/writer";

const TURNS = 400;

function* chat(index: number): Generator<ChatRecord> {
  const at = new Date(1_700_000_000_000 + index * 1000).toISOString();
  yield {
    kind: "session",
    value: {
      id: `chat-${index}`,
      agent: "demo",
      name: `Chat ${index}`,
      named_by_user: true,
      created_at: at,
      updated_at: at,
      initial_state: { mode: "bench" },
      state: {},
      last_seq: 0,
      forked_from_session_id: null,
      forked_before_invocation_id: null,
    },
  };
  for (const name of ["a.bin", "b.bin"]) {
    const data = Buffer.alloc(48 * 1024, index % 251);
    const sha256 = createHash("sha256").update(data).digest("hex");
    yield {
      kind: "file",
      value: {
        filename: name,
        version: 0,
        mime_type: "application/octet-stream",
        tombstone: false,
        restored_from: null,
        created_at: at,
        sha256,
        data_base64: data.toString("base64"),
      },
    };
  }
  let seq = 0;
  const text = `${"lorem ipsum dolor sit amet ".repeat(40)}`;
  for (let t = 0; t < TURNS; t++) {
    const inv = `e-${index}-${t}`;
    const base = { invocation_id: inv, timestamp: 1_700_000_000 + t };
    yield {
      kind: "event",
      value: {
        seq: ++seq,
        id: `u-${index}-${t}`,
        author: "user",
        ...base,
        content: { role: "user", parts: [{ text: `q${t} ${text}` }] },
        actions: { state_delta: {}, artifact_delta: {} },
      },
    };
    const files = t === 0 ? { "a.bin": 0, "b.bin": 0 } : {};
    yield {
      kind: "event",
      value: {
        seq: ++seq,
        id: `a-${index}-${t}`,
        author: "demo",
        ...base,
        content: { role: "model", parts: [{ text: `a${t} ${text}` }] },
        actions: { state_delta: { step: t }, artifact_delta: files },
        turn_complete: true,
      },
    };
    if (t === TURNS / 2) {
      yield {
        kind: "event",
        value: {
          seq: ++seq,
          id: `m-${index}`,
          invocation_id: `e-${index}-marker`,
          author: "user",
          timestamp: 1_700_000_500,
          actions: { state_delta: { step: t - 2 }, artifact_delta: {}, rewind_before_invocation_id: `e-${index}-${t - 1}` },
        },
      };
    }
  }
  for (let t = 0; t < TURNS; t++) {
    yield {
      kind: "task",
      value: {
        invocation_id: `e-${index}-${t}`,
        task_id: `task-${index}-${t}`,
        message_id: null,
        task: { status: { state: "completed" }, metadata: { kagent_invocation_id: `e-${index}-${t}` } },
      },
    };
  }
}

/** Writes an archive of about `mb` MB; resolves with its size in bytes. */
export async function writeArchive(file: string, mb: number): Promise<number> {
  const out = createWriteStream(file);
  let written = 0;
  async function* chats() {
    for (let i = 0; written < mb * 1024 * 1024; i++)
      yield (async function* () {
        yield* chat(i);
      })();
  }
  for await (const piece of archiveText(chats())) {
    written += Buffer.byteLength(piece);
    if (!out.write(piece)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
  return (await stat(file)).size;
}

export interface ImportFigures {
  bytes: number;
  chats: number;
  ms: number;
  peakRssMb: number;
  peakHeapMb: number;
  /** RSS once the store is open, before the import starts. */
  baselineRssMb: number;
}

/** Imports `file` in a child process (SQLite in `dir`, or `databaseUrl`); resolves with what it measured. */
export async function importInChild(file: string, dir: string, databaseUrl?: string): Promise<ImportFigures> {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "--import", path.join(here, "../scripts/server-context.mjs"), path.join(here, "import-child.ts"), file],
    {
      env: {
        ...process.env,
        DATABASE_PATH: path.join(dir, "import.db"),
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
        AUTH_SECRET: "bench-secret-of-sixteen-characters",
        RETRACE_MAX_STORED_BYTES: String(1024 ** 4),
      },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let output = "";
  child.stdout.on("data", (chunk) => {
    output += chunk;
  });
  const [code] = await once(child, "exit");
  if (code !== 0) throw new Error(`the import child exited with ${code}: ${output}`);
  return JSON.parse(output.trim().split("\n").at(-1) as string) as ImportFigures;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name: string) => process.argv[process.argv.indexOf(name) + 1];
  const mb = process.argv.includes("--mb") ? Number(arg("--mb")) : 256;
  const dir = await mkdtemp(path.join(tmpdir(), "retrace-import-bench-"));
  try {
    let url: string | undefined;
    let stop: () => Promise<void> = async () => undefined;
    if (process.argv.includes("--db") && arg("--db") === "postgres") {
      const { startPostgres } = await import("../scripts/test-postgres");
      const server = await startPostgres({ port: Number(process.env.BENCH_PORT ?? 3230) + 9 });
      url = server.url;
      stop = async () => server.stop();
    }
    const file = path.join(dir, "archive.json");
    const size = await writeArchive(file, mb);
    console.log(`archive: ${(size / 1024 ** 2).toFixed(0)} MiB`);
    const figures = await importInChild(file, dir, url);
    await stop();
    const rate = size / 1024 ** 2 / (figures.ms / 1000);
    console.log(
      `imported ${figures.chats} chats in ${(figures.ms / 1000).toFixed(1)} s (${rate.toFixed(1)} MiB/s); peak RSS ${figures.peakRssMb.toFixed(0)} MiB, peak heap ${figures.peakHeapMb.toFixed(0)} MiB (RSS before it began: ${figures.baselineRssMb.toFixed(0)} MiB)`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
