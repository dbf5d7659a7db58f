import { describe, expect, it } from 'vitest';
import { DEFAULT_PROBES, defaultProbesFor } from './default-probes.js';

describe('default probes', () => {
  it('let every catalogue pattern but daily-triage decide a quiet tick without a model call', () => {
    const catalogue = ['issue-pr-repair', 'pr-babysitter', 'daily-triage', 'ci-sweeper', 'post-merge-cleanup', 'dependency-sweeper', 'changelog-drafter', 'issue-triage', 'thin-loop'];
    expect(catalogue.filter((id) => defaultProbesFor(id).length === 0)).toEqual(['daily-triage']);
  });

  it('gives thin-loop the issues and pull requests updated within twice its cadence', () => {
    expect(DEFAULT_PROBES['thin-loop']!.map((probe) => probe.name)).toEqual(['recently-updated-issues', 'recently-updated-pull-requests']);
    for (const probe of DEFAULT_PROBES['thin-loop']!) {
      expect(probe.found).toBe('json-entries');
      expect(probe.command).toContain('select(.updatedAt > (now - 7200 | todate))');
    }
  });
});
