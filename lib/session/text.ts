/**
 * One rule for all text Retrace stores (ids, keys, file names, messages): no NUL, which PostgreSQL's text
 * cannot hold, and no unpaired UTF-16 surrogate, which UTF-8 cannot encode (it would be stored as U+FFFD,
 * unlike the JSON around it). Requests break it get a 400; a tool call that breaks it, a tool error.
 */
export const isCleanText = (text: string) => text.isWellFormed() && !text.includes("\u0000");

export const UNCLEAN_TEXT = "contains a NUL character or an unpaired UTF-16 surrogate, which are not accepted";
