/**
 * One Discovery contract: the probe runner with real `sh -c` probes in a
 * temporary repository, and its memory twin with the same runs scripted.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryDiscovery } from '../../src/adapters/discovery/memory-discovery.js';
import { ProbeDiscovery } from '../../src/adapters/discovery/probe-discovery.js';
import { describeDiscoveryConformance, discoveryPlan } from '../../src/testing/conformance/index.js';

describeDiscoveryConformance('ProbeDiscovery', {
  async create(probes) {
    const root = await mkdtemp(join(tmpdir(), 'discovery-conformance-'));
    const commands = await Promise.all(
      probes.map(async (probe, index) => {
        if (probe.run.timedOut) return 'exec sleep 30';
        // Output goes through files, so any bytes survive without shell quoting.
        await writeFile(join(root, `${index}.out`), probe.run.stdout ?? '');
        await writeFile(join(root, `${index}.err`), probe.run.stderr ?? '');
        return `cat ${index}.out; cat ${index}.err >&2; exit ${probe.run.exitCode ?? 0}`;
      }),
    );
    return {
      discovery: new ProbeDiscovery({ root, env: { PATH: process.env.PATH } }),
      plan: discoveryPlan(probes.map((probe, index) => ({ ...probe, command: commands[index] ?? 'false' }))),
      dispose: () => rm(root, { recursive: true, force: true }),
    };
  },
});

describeDiscoveryConformance('MemoryDiscovery', {
  async create(probes) {
    const runs = Object.fromEntries(probes.map((probe) => [probe.name, probe.run]));
    return {
      discovery: new MemoryDiscovery({ runs }),
      plan: discoveryPlan(probes.map((probe) => ({ ...probe, command: 'not run' }))),
    };
  },
});
