/** `type/subtype` with optional `; name=value` parameters, printable ASCII only: safe as a header value. */
export const MIME_TYPE =
  /^[\w!#$%&'*+.^`|~-]+\/[\w!#$%&'*+.^`|~-]+(?:[ \t]*;[ \t]*[\w!#$%&'*+.^`|~-]+=(?:[\w!#$%&'*+.^`|~-]+|"(?:[\t\x20\x21\x23-\x5b\x5d-\x7e]|\\[\t\x20-\x7e])*"))*$/;

export const isMimeType = (value: string) => MIME_TYPE.test(value);
