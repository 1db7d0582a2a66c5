/**
 * Values at chosen paths of a JSON document as it streams in (@streamparser/json): each is handed over as
 * soon as it is complete and then dropped by the parser, so memory holds one value, not the document.
 */
import { JSONParser } from "@streamparser/json";
import { ValidationError } from "@/lib/errors";

export interface JsonValue {
  value: unknown;
  /** The keys from the root to the value, the value's own last (array indexes as numbers). */
  path: (string | number)[];
}

/** `paths` in the parser's syntax: `$.chats.*.events.*`. `onBytes` hears how much has been read so far. */
export async function* jsonValues(
  source: AsyncIterable<Uint8Array>,
  paths: string[],
  onBytes: (bytes: number) => void = () => undefined,
): AsyncGenerator<JsonValue> {
  const parser = new JSONParser({ paths, keepStack: false });
  let found: JsonValue[] = [];
  parser.onValue = ({ value, key, stack }) => {
    found.push({ value, path: [...stack.slice(1).map((s) => s.key as string | number), key as string | number] });
  };
  let bytes = 0;
  try {
    for await (const chunk of source) {
      parser.write(chunk);
      bytes += chunk.byteLength;
      onBytes(bytes);
      const ready = found;
      found = [];
      yield* ready;
    }
  } catch (error) {
    if (error instanceof Error && !(error instanceof ValidationError) && /Unexpected|JSON|parse/i.test(error.message)) {
      throw new ValidationError(`The file is not valid JSON (after ${bytes.toLocaleString("en")} bytes)`);
    }
    throw error;
  }
  if (!parser.isEnded) throw new ValidationError("The file ends before its JSON does: was the upload cut short?");
}
