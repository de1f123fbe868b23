// Which of the tooling suites a test run includes. The end-to-end tests of the tooling around the
// server, the benchmark harness ('bench') and the deployment files ('deploy'), check code and files
// that behave the same on every Node release and front-end thread count (the server behaviour they
// reach is covered by the integration suites of its own), so .ci/run runs each group in one of its
// two passes only: INFERNODE_TEST_TOOLING=bench on Node 20, =deploy on Node 24 (the Dockerfile's
// Node). Unset, as under a plain `npm test`, every group runs.

export type ToolingGroup = 'bench' | 'deploy';

const GROUPS: readonly ToolingGroup[] = ['bench', 'deploy'];

function selected(): readonly ToolingGroup[] {
  const value = process.env['INFERNODE_TEST_TOOLING'];
  if (value === undefined) return GROUPS;
  return value.split(',').map((g) => {
    if (g !== 'bench' && g !== 'deploy') {
      throw new Error(`INFERNODE_TEST_TOOLING: expected bench and/or deploy, got "${g}"`);
    }
    return g;
  });
}

/** A skip reason when this run leaves `group` to the other CI pass, false when it runs it. */
export function toolingSkipped(group: ToolingGroup): string | false {
  return selected().includes(group)
    ? false
    : `INFERNODE_TEST_TOOLING=${process.env['INFERNODE_TEST_TOOLING'] ?? ''} leaves the ` +
        `${group} suites to .ci/run's other pass (they run the same on every Node release)`;
}
