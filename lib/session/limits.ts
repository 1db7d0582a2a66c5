/**
 * The input limits every route holds a request to (docs/api.md, "Requests"), and an import holds each value
 * of an uploaded file to (docs/api.md, "Export and import").
 */

/** The largest request body any route or server action accepts; the largest value one message or file may be. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

/** How deeply objects and arrays may nest in any JSON we accept. */
export const MAX_JSON_DEPTH = 64;
