/** Vitest global setup of the `postgres` project: one throwaway cluster, and a migrated template database. */
import pg from "pg";
import type { TestProject } from "vitest/node";
import { openPostgres } from "@/lib/db/postgres";
import { startPostgres } from "../../scripts/test-postgres";

export default async function setup(project: TestProject) {
  const server = await startPostgres();
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query("CREATE DATABASE retrace_template");
  await admin.end();
  const template = await openPostgres(server.url.replace(/\/postgres$/, "/retrace_template"), 1);
  await template.close();
  project.provide("postgresUrl", server.url);
  return () => server.stop();
}

declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}
