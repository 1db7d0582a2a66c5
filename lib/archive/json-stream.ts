/**
 * Values at chosen paths of a JSON document as it streams in (@streamparser/json): each is handed over as
 * soon as it is complete and then dropped by the parser, so memory holds one value, not the document. The
 * bytes pass the input rules first (lib/archive/json-guard.ts): each selected value may nest as deeply as a
 * request body, and no string or number in it may be longer than one message (`longer` names a key whose
 * strings may be longer, a file's base64).
 */
import { JSONParser } from "@streamparser/json";
import { AppError, ValidationError } from "@/lib/errors";
import { MAX_BODY_BYTES, MAX_JSON_DEPTH } from "@/lib/session/limits";
import { type GuardLimits, JsonGuard } from "./json-guard";

/** Bytes parsed between two turns of the event loop. */
const SLICE_BYTES = 16 * 1024;

export interface JsonValue {
  value: unknown;
  /** The keys from the root to the value, the value's own last (array indexes as numbers). */
  path: (string | number)[];
}

interface Options {
  /** In the parser's syntax: `$.chats.*.events.*`. */
  paths: string[];
  /** Hears how much has been read so far. */
  onBytes?: (bytes: number) => void;
  longer?: GuardLimits["longer"];
}

export async function* jsonValues(source: AsyncIterable<Uint8Array>, options: Options): AsyncGenerator<JsonValue> {
  const { paths, onBytes = () => undefined, longer } = options;
  const parser = new JSONParser({ paths, keepStack: false });
  // A selected value starts as deep as its path is long: below that, it may nest as a request body may.
  const above = Math.max(...paths.map((p) => p.split(".").length - 1));
  const guard = new JsonGuard({ depth: MAX_JSON_DEPTH, above, valueBytes: MAX_BODY_BYTES, longer });
  let found: JsonValue[] = [];
  parser.onValue = ({ value, key, stack }) => {
    found.push({ value, path: [...stack.slice(1).map((s) => s.key as string | number), key as string | number] });
  };
  let bytes = 0;
  for await (const chunk of source) {
    // Parsed a slice at a time, the event loop turning between: an upload whose chunks are all there already
    // would otherwise be parsed without other requests getting a turn.
    for (let at = 0; at < chunk.length; at += SLICE_BYTES) {
      const slice = chunk.subarray(at, at + SLICE_BYTES);
      const breach = guard.scan(slice);
      const allowed = breach ? slice.subarray(0, breach.before) : slice;
      try {
        parser.write(allowed);
      } catch (error) {
        if (error instanceof AppError) throw error;
        throw new ValidationError(`The file is not valid JSON (after ${bytes.toLocaleString("en")} bytes)`);
      }
      bytes += allowed.byteLength;
      onBytes(bytes);
      const ready = found;
      found = [];
      // What came complete before a breach is handed over first: the chats before it are imported.
      yield* ready;
      if (breach) throw breach.error;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  if (!parser.isEnded) throw new ValidationError("The file ends before its JSON does: was the upload cut short?");
}
