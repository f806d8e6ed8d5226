/** Types of build.mjs for the TypeScript that imports it (the test run's global setup, the benches). */
export function buildConnector(outdir?: string): Promise<void>;
