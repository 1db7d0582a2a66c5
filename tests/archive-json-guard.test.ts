/** The input rules on a streamed JSON document (lib/archive/json-guard.ts), wherever its chunks happen to split it. */
import { describe, expect, it } from "vitest";
import { JsonGuard } from "@/lib/archive/json-guard";

const LIMITS = { depth: 3, above: 1, valueBytes: 12, longer: { key: "data_base64", bytes: 20 } };

/** The guard's verdict on `text` cut into chunks of every size from 1 byte up: the same for all, or a list of them. */
function verdict(text: string) {
  const bytes = Buffer.from(text);
  const verdicts = new Set<string>();
  for (let size = 1; size <= bytes.length; size++) {
    const guard = new JsonGuard(LIMITS);
    let found = "ok";
    for (let i = 0; i < bytes.length && found === "ok"; i += size) {
      const breach = guard.scan(bytes.subarray(i, i + size));
      if (breach) found = `${breach.error.code} at ${i + breach.before}`;
    }
    verdicts.add(found);
  }
  return [...verdicts].join(" | ");
}

describe("the JSON guard", () => {
  it("passes what the rules allow", () => {
    expect(verdict('{"a":[[1,2]],"b":"0123456789","c":"\\ud83d\\ude00","d":"\\n\\"x"}')).toBe("ok");
    expect(verdict(`{"data_base64":"${"A".repeat(20)}","k":123456789012}`)).toBe("ok");
  });

  it("refuses nesting past its depth at the bracket that passes it", () => {
    expect(verdict("[[[[1]]]]")).toBe("ok");
    expect(verdict('[[[{"a":[1]}]]]')).toBe("json_too_deep at 8");
    expect(verdict('["[[[[[["]')).toBe("ok");
  });

  it("says where", () => {
    const guard = new JsonGuard(LIMITS);
    expect(guard.scan(Buffer.from('["abc",'))).toBeNull();
    expect(guard.scan(Buffer.from('"\\u0000"]'))?.error.message).toMatch(/^A string in the file \(at byte 13\) contains a NUL/);
    expect(new JsonGuard(LIMITS).scan(Buffer.from("[[[[["))?.error.message).toBe(
      "A chat in the file nests JSON deeper than 3 levels (at byte 4)",
    );
  });

  it("refuses NUL and unpaired surrogates escaped in strings and keys", () => {
    expect(verdict('["a\\u0000"]')).toBe("invalid_text at 8");
    expect(verdict('{"\\udc00":1}')).toBe("invalid_text at 7");
    expect(verdict('["\\ud800x"]')).toBe("invalid_text at 8");
    expect(verdict('["\\ud800\\n"]')).toBe("invalid_text at 9");
    expect(verdict('["\\ud800"]')).toBe("invalid_text at 8");
    expect(verdict('["\\ud800\\ud800"]')).toBe("invalid_text at 13");
  });

  it("refuses a value longer than its limit, a file's base64 under its own", () => {
    expect(verdict(`["${"x".repeat(13)}"]`)).toMatch(/^invalid_request at \d+$/);
    expect(verdict(`["${"x".repeat(12)}","${"x".repeat(12)}"]`)).toBe("ok");
    expect(verdict(`{"${"k".repeat(13)}":1}`)).toMatch(/^invalid_request at \d+$/);
    expect(verdict(`[1${"0".repeat(12)}]`)).toMatch(/^invalid_request at \d+$/);
    expect(verdict(`{"data_base64": "${"A".repeat(21)}"}`)).toMatch(/^invalid_request at \d+$/);
    expect(verdict(`{"data_base64x":"${"A".repeat(13)}"}`)).toMatch(/^invalid_request at \d+$/);
    expect(verdict(`{"data_base64":1,"y":"${"A".repeat(13)}"}`)).toMatch(/^invalid_request at \d+$/);
  });
});
