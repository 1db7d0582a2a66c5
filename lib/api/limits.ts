/** The largest request body any route or server action accepts (docs/api.md, "Requests"); next.config.ts reads it too. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;
