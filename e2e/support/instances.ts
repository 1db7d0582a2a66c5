/** The two app instances the end-to-end suite runs on one PostgreSQL, beside the SQLite one. */
const E2E_PORT = Number(process.env.E2E_PORT ?? 3210);

export const POSTGRES_PORT = E2E_PORT + 5;
export const INSTANCE_A = `http://127.0.0.1:${E2E_PORT + 2}`;
export const INSTANCE_B = `http://127.0.0.1:${E2E_PORT + 3}`;
/** Every instance signs and checks guest tokens with it, so a token works on all of them. */
export const SHARED_SECRET = "e2e-shared-secret-for-every-instance";
