import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEFAULT_PROBES } from '../core/schedule/default-probes.js';
import { githubWorkflow, permissionsFor, type WorkflowLoop } from './github-workflow.js';
import { crontabLine, onCalendarFor, systemdUnits } from './server-schedule.js';

const MINUTE = 60_000;
const probeCommands = (id: string) => (DEFAULT_PROBES[id] ?? []).map((probe) => probe.command);
const LOOPS: WorkflowLoop[] = [
  { id: 'ci-sweeper', cadence: { text: '5m-15m', minIntervalMs: 5 * MINUTE, maxIntervalMs: 15 * MINUTE }, backend: 'claude-code', delivery: 'pull-request', timeoutMs: 30 * MINUTE, probeCommands: probeCommands('ci-sweeper') },
  { id: 'daily-triage', cadence: { text: '1d-2h', minIntervalMs: 120 * MINUTE, maxIntervalMs: 1440 * MINUTE }, backend: 'openai', delivery: 'local', timeoutMs: 20 * MINUTE, probeCommands: [] },
  { id: 'dependency-sweeper', cadence: { text: '6h-1d', minIntervalMs: 360 * MINUTE, maxIntervalMs: 1440 * MINUTE }, backend: 'ollama', delivery: 'push', timeoutMs: 20 * MINUTE, probeCommands: probeCommands('dependency-sweeper') },
];

/** The workflow linter, when the project has it installed (devDependency @action-validator/core). */
function loadValidator(): ((source: string) => { errors: unknown[] }) | null {
  try {
    const require = createRequire(import.meta.url);
    return (require('@action-validator/core') as { validateWorkflow: (source: string) => { errors: unknown[] } }).validateWorkflow;
  } catch {
    return null;
  }
}
const validateWorkflow = loadValidator();

interface Job {
  if: string;
  concurrency: { group: string; 'cancel-in-progress': boolean };
  permissions: Record<string, string>;
  env?: Record<string, string>;
  steps: Array<{ run?: string; uses?: string; if?: string }>;
}

describe('githubWorkflow', () => {
  const text = githubWorkflow({ loops: LOOPS, install: { kind: 'project', lockfile: true } });
  const workflow = parse(text) as { on: { schedule: Array<{ cron: string }> }; permissions: object; jobs: Record<string, Job> };

  it('matches the golden file', async () => {
    await expect(text).toMatchFileSnapshot('./__golden__/loop-runtime.yml');
  });

  it.skipIf(validateWorkflow === null)('passes the workflow linter (@action-validator/core)', () => {
    expect(validateWorkflow!(text).errors).toEqual([]);
  });

  it('is valid YAML with one schedule per distinct cadence and a job per loop gated on its own schedule', () => {
    expect(workflow.on.schedule).toHaveLength(3);
    expect(Object.keys(workflow.jobs)).toEqual(['ci-sweeper', 'daily-triage', 'dependency-sweeper']);
    workflow.on.schedule.forEach(({ cron }, index) => {
      expect(Object.values(workflow.jobs)[index]!.if).toBe(`github.event_name != 'schedule' || github.event.schedule == '${cron}'`);
    });
  });

  it('gives every loop its own concurrency group that never cancels a running tick', () => {
    for (const [id, job] of Object.entries(workflow.jobs)) expect(job.concurrency).toEqual({ group: `loop-runtime-${id}`, 'cancel-in-progress': false });
  });

  it('grants least privilege: nothing by default, write only where the state branch or delivery needs it', () => {
    expect(workflow.permissions).toEqual({});
    expect(workflow.jobs['ci-sweeper']!.permissions).toEqual({ contents: 'write', 'pull-requests': 'write', actions: 'read' });
    expect(permissionsFor(LOOPS[1]!, null)).toEqual({ contents: 'read' });
    expect(permissionsFor(LOOPS[2]!, null)).toEqual({ contents: 'write' });
  });

  it('passes only the secrets each backend needs', () => {
    expect(workflow.jobs['ci-sweeper']!.env).toEqual({ ANTHROPIC_API_KEY: '${{ secrets.ANTHROPIC_API_KEY }}', GH_TOKEN: '${{ github.token }}' });
    expect(workflow.jobs['daily-triage']!.env).toEqual({ OPENAI_API_KEY: '${{ secrets.OPENAI_API_KEY }}' });
    expect(workflow.jobs['dependency-sweeper']!.env).toBeUndefined();
  });

  it('pulls state before the tick and always pushes it and renders the summary after', () => {
    const runs = workflow.jobs['ci-sweeper']!.steps.map((step) => `${step.if ? `[${step.if}] ` : ''}${step.run ?? step.uses}`);
    expect(runs.slice(2)).toEqual([
      'npm ci',
      'npx loop-runtime state pull',
      'set +e\nnpx loop-runtime run ci-sweeper --due --json > "$RUNNER_TEMP/loop-runtime.json"\necho "exit-code=$?" >> "$GITHUB_OUTPUT"',
      '[always()] npx loop-runtime state push',
      '[always()] npx loop-runtime ci summary "$RUNNER_TEMP/loop-runtime.json" --exit-code "$TICK_EXIT_CODE"',
    ]);
  });

  it('without a state branch or a project dependency: no state steps, a pinned npx package', () => {
    const bare = parse(githubWorkflow({ loops: LOOPS.slice(1, 2), install: { kind: 'npx', spec: 'loop-runtime@0.1.0' }, stateBranch: null })) as { jobs: Record<string, Job> };
    const steps = bare.jobs['daily-triage']!.steps.map((step) => step.run ?? step.uses);
    expect(steps.some((step) => step?.includes('state'))).toBe(false);
    expect(steps).toContain('npx --yes loop-runtime@0.1.0 ci summary "$RUNNER_TEMP/loop-runtime.json" --exit-code "$TICK_EXIT_CODE"');
  });
});

describe('server schedules', () => {
  const options = { root: '/srv/my app', periodMs: 5 * MINUTE, command: 'npx loop-runtime', timeoutMs: 30 * MINUTE };
  it('prints a crontab line that runs run --due in the repository', () => {
    expect(crontabLine(options)).toMatch(/^\S+ \* \* \* \* cd '\/srv\/my app' && CI=true npx loop-runtime run --due >> \.loop-runtime\/cron\.log 2>&1$/);
  });

  it('prints a oneshot service and a persistent timer', () => {
    const { service, timer } = systemdUnits(options);
    expect(service).toContain('ExecStart=/usr/bin/env npx loop-runtime run --due');
    expect(service).toContain('SuccessExitStatus=2 4');
    expect(timer).toMatch(/OnCalendar=\*-\*-\* \*:\d\d\/5:00/);
    expect(timer).toContain('Persistent=true');
    expect(onCalendarFor(24 * 60 * MINUTE)).toMatch(/^\*-\*-\* \d\d:\d\d:00$/);
    expect(onCalendarFor(6 * 60 * MINUTE)).toMatch(/^\*-\*-\* \d\d\/6:\d\d:00$/);
  });
});
