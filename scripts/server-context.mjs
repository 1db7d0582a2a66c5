/**
 * The server's modules `import "server-only"`, which throws unless resolved under the `react-server` condition, as
 * Next.js resolves it on the server. Node processes that run them outside Next.js (tsx scripts, benches, test
 * children, Playwright's workers) load this first: `node --import tsx --import ./scripts/server-context.mjs …`.
 */
import { register } from "node:module";

const hooks = `export async function resolve(specifier, context, next) {
  const server = specifier === "server-only" && !context.conditions.includes("react-server");
  return next(specifier, server ? { ...context, conditions: [...context.conditions, "react-server"] } : context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
