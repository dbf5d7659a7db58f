/**
 * A small stand-in for a GitHub-hosted runner executing one job of a
 * workflow: each `run:` step in order with `bash -e {0}` (the runner's
 * default shell), the runner's files (`RUNNER_TEMP`, `GITHUB_OUTPUT`,
 * `GITHUB_PATH`, `GITHUB_ENV`, `GITHUB_STEP_SUMMARY`) and its step
 * semantics: after a failed step only `if: always()` steps run; `if:` conditions on the event name and step
 * outputs (see shouldRun); step outputs
 * feed `${{ steps.<id>.outputs.<name> }}`. `uses:` steps are not run (the
 * caller states what they stand for). Any other expression or `if:` throws,
 * so the test notices when the workflow grows something this cannot judge.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export interface WorkflowStep {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string>;
}

export interface WorkflowJob {
  env?: Record<string, string>;
  steps: WorkflowStep[];
}

export interface StepResult {
  label: string;
  status: 'uses-skipped' | 'skipped' | 'ran';
  exitCode: number | null;
  output: string;
}

export interface JobResult {
  steps: StepResult[];
  /** True when a step failed: GitHub marks the job failed (red). */
  failed: boolean;
  /** Everything the steps appended to `$GITHUB_STEP_SUMMARY`. */
  summary: string;
  /** Each step's outputs (`$GITHUB_OUTPUT`), by step id. */
  outputs: Record<string, Record<string, string>>;
}

export interface RunJobOptions {
  cwd: string;
  /** The runner's environment (PATH, HOME, CI, GITHUB_EVENT_NAME, …). */
  env: Record<string, string>;
  /** Values for `${{ secrets.NAME }}`; missing secrets are empty, as on GitHub. */
  secrets?: Record<string, string>;
  /** The value of `${{ github.token }}` (the job's token on GitHub; empty by default). */
  githubToken?: string;
}

function parseKeyValueFile(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const body: string[] = [];
      for (index += 1; index < lines.length && lines[index] !== heredoc[2]; index += 1) body.push(lines[index]!);
      values[heredoc[1]!] = body.join('\n');
    } else if (line.includes('=')) {
      values[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
    }
  }
  return values;
}

function evaluate(text: string, outputs: Map<string, Record<string, string>>, secrets: Record<string, string>, token = ''): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expression: string) => {
    const step = /^steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)$/.exec(expression);
    if (step) return outputs.get(step[1]!)?.[step[2]!] ?? '';
    const secret = /^secrets\.([A-Za-z0-9_]+)$/.exec(expression);
    if (secret) return secrets[secret[1]!] ?? '';
    if (expression === 'github.token') return token;
    throw new Error(`actions-runner: cannot evaluate \${{ ${expression} }}`);
  });
}

/**
 * A step's `if:` as the runner judges it: `&&` of `always()`, `github.event_name == '…'` and
 * `steps.<id>.outputs.<name> ==|!= '…'`; without `always()` a failed job skips the step (GitHub's implicit `success()`).
 */
function shouldRun(condition: string | undefined, failed: boolean, outputs: Map<string, Record<string, string>>, env: Record<string, string>): boolean {
  if (condition === undefined) return !failed;
  let always = false;
  let holds = true;
  for (const part of condition.split('&&').map((text) => text.trim())) {
    if (part === 'always()') {
      always = true;
      continue;
    }
    const output = /^steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+) (==|!=) '([^']*)'$/.exec(part);
    const event = /^github\.event_name (==|!=) '([^']*)'$/.exec(part);
    if (output) {
      const value = outputs.get(output[1]!)?.[output[2]!] ?? '';
      holds &&= output[3] === '==' ? value === output[4] : value !== output[4];
    } else if (event) {
      const value = env.GITHUB_EVENT_NAME ?? '';
      holds &&= event[1] === '==' ? value === event[2] : value !== event[2];
    } else {
      throw new Error(`actions-runner: cannot evaluate if: ${condition}`);
    }
  }
  return holds && (always || !failed);
}

function bash(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-e', script], { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

/** Runs one job's steps in order the way a hosted runner does. */
export async function runJob(job: WorkflowJob, options: RunJobOptions): Promise<JobResult> {
  const temp = await mkdtemp(join(options.env.TMPDIR ?? '/tmp', 'runner-temp-'));
  const secrets = options.secrets ?? {};
  const outputs = new Map<string, Record<string, string>>();
  const summaryPath = join(temp, '_step_summary');
  await writeFile(summaryPath, '');
  const extraPath: string[] = [];
  const extraEnv: Record<string, string> = {};
  const results: StepResult[] = [];
  let failed = false;
  for (const [index, step] of job.steps.entries()) {
    const label = step.name ?? step.run?.split('\n')[0] ?? step.uses ?? `step ${index}`;
    if (!shouldRun(step.if, failed, outputs, options.env)) {
      results.push({ label, status: 'skipped', exitCode: null, output: '' });
      continue;
    }
    if (step.uses) {
      results.push({ label, status: 'uses-skipped', exitCode: null, output: '' });
      continue;
    }
    const files = { output: join(temp, `_output_${index}`), path: join(temp, `_path_${index}`), env: join(temp, `_env_${index}`) };
    await Promise.all(Object.values(files).map((file) => writeFile(file, '')));
    const script = join(temp, `_step_${index}.sh`);
    await writeFile(script, evaluate(step.run ?? '', outputs, secrets, options.githubToken));
    const stepEnv = Object.fromEntries(Object.entries({ ...job.env, ...step.env }).map(([name, value]) => [name, evaluate(value, outputs, secrets, options.githubToken)]));
    const env = {
      ...options.env,
      ...extraEnv,
      ...stepEnv,
      PATH: [...extraPath, options.env.PATH].join(':'),
      RUNNER_TEMP: temp,
      GITHUB_WORKSPACE: options.cwd,
      GITHUB_OUTPUT: files.output,
      GITHUB_PATH: files.path,
      GITHUB_ENV: files.env,
      GITHUB_STEP_SUMMARY: summaryPath,
    };
    const ran = await bash(script, options.cwd, env);
    results.push({ label, status: 'ran', exitCode: ran.code, output: ran.output });
    if (step.id) outputs.set(step.id, parseKeyValueFile(await readFile(files.output, 'utf8')));
    extraPath.unshift(...(await readFile(files.path, 'utf8')).split('\n').filter(Boolean).reverse());
    Object.assign(extraEnv, parseKeyValueFile(await readFile(files.env, 'utf8')));
    if (ran.code !== 0) failed = true;
  }
  return { steps: results, failed, summary: await readFile(summaryPath, 'utf8'), outputs: Object.fromEntries(outputs) };
}

/**
 * The environment every step of a hosted runner sees, as the tests emulate it: `shims` (fake tools) first on PATH,
 * then this Node and the system's bin directories, a private TMPDIR under `root` (created by the caller), `CI` and
 * `GITHUB_ACTIONS` set, no colour. Each test adds what its workflow needs (the repository, the API URL, git config).
 */
export function hostedRunnerEnv(root: string, shims: string | null = null): Record<string, string> {
  return {
    PATH: [...(shims ? [shims] : []), dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
    HOME: process.env.HOME ?? root,
    TMPDIR: join(root, 'tmp'),
    LANG: 'C.UTF-8',
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    NO_COLOR: '1',
  };
}
