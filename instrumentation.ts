/** Next.js calls this once when a server instance starts. */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startServer } = await import("./lib/server");
  await startServer();
}
