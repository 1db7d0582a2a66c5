/** The built-in offline agent (docs/semantics.md, "The demo agent"): always present, the default for new chats. */
export const DEMO_AGENT = "demo";
