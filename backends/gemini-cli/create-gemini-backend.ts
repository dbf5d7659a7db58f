/**
 * The Gemini CLI backend: the real `gemini -p --output-format stream-json`,
 * headless, through the shared contained path (`../shared/contained-cli.ts`).
 * The only file of the backend that touches the disk: arguments, settings,
 * event parsing and result mapping are pure modules.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ZERO_USAGE, type AgentBackend, type AgentRequest, type AgentResult, type BackendFailureReason } from '../../src/core/ports/index.js';
import { mapCliResult } from '../opencode/map-cli-result.js';
import { createContainedCli, finishContainedResult, type ContainmentSettings } from '../shared/contained-cli.js';
import { buildRolePrompt, workspaceOf } from '../shared/prompt.js';
import type { PriceTable } from '../shared/usage.js';
import { GEMINI_EXIT_CODES, parseGeminiLine, type GeminiResultEvent } from './gemini-events.js';
import { toGeminiArgs, toGeminiEnv, toGeminiSettings } from './to-gemini-args.js';

export interface GeminiCliBackendSettings extends ContainmentSettings {
  /** Path or name of the CLI. Default "gemini" (on PATH). */
  binary?: string;
  /** Default gemini-2.5-flash. */
  model?: string;
  maxTurns?: number;
  /** Isolated home (HOME and GEMINI_CLI_HOME). Default: a temporary directory per backend, removed on close(). */
  home?: string;
  env?: Record<string, string>;
  passEnv?: string[];
  /** The Gemini API endpoint the metering proxy forwards to. Default GOOGLE_GEMINI_BASE_URL, else Google's. */
  baseUrl?: string;
  /** settings.json `security.auth.selectedType`. Default "gemini-api-key". */
  authType?: string;
  allowBash?: boolean;
  timeoutMs?: number;
  killGraceMs?: number;
  prices?: PriceTable;
  projectRoot?: string;
  extraArgs?: string[];
}

const TRANSCRIPT_LIMIT = 20_000;
const DEFAULT_ENDPOINT = 'https://generativelanguage.googleapis.com';
const AUTH_FIX = 'set GEMINI_API_KEY for loop-runtime (https://aistudio.google.com/apikey), or pick another auth type with the backend\'s "authType" setting.';

function exitReason(code: number | null): BackendFailureReason | undefined {
  if (code === GEMINI_EXIT_CODES.auth) return 'auth';
  if (code === GEMINI_EXIT_CODES.turnLimit) return 'max-turns';
  return undefined;
}

/**
 * @example
 * ```ts
 * const backend = createGeminiCliBackend({ model: 'gemini-2.5-pro', maxTurns: 20 });
 * const result = await backend.run(request);
 * ```
 */
export function createGeminiCliBackend(settings: GeminiCliBackendSettings = {}): AgentBackend {
  const binary = settings.binary ?? 'gemini';
  const model = settings.model ?? 'gemini-2.5-flash';
  const projectRoot = settings.projectRoot ?? process.cwd();
  const cli = createContainedCli({ ...settings, projectRoot, hostEnv: process.env }, { name: 'Gemini', install: 'install it (npm install -g @google/gemini-cli, Node ≥ 20)' });
  let ownHome: Promise<string> | undefined;
  const homeDir = () => (settings.home ? Promise.resolve(settings.home) : (ownHome ??= mkdtemp(path.join(tmpdir(), 'loop-gemini-home-'))));

  async function run(request: AgentRequest): Promise<AgentResult> {
    if (request.signal?.aborted) {
      return { ok: false, reason: 'aborted', message: 'The run was aborted before the Gemini CLI started.', retryable: true, usage: { ...ZERO_USAGE } };
    }
    const maxTurns = Math.min(request.maxTurns, settings.maxTurns ?? Infinity);
    const prompt = buildRolePrompt(request, { finish: 'final-message' });
    const home = await homeDir();
    await mkdir(path.join(home, '.gemini'), { recursive: true });
    const gemini = { role: request.role, permissions: request.permissions, maxTurns, ...(settings.allowBash !== undefined ? { allowBash: settings.allowBash } : {}) };
    await writeFile(path.join(home, '.gemini', 'settings.json'), JSON.stringify(toGeminiSettings({ ...gemini, ...(settings.authType ? { authType: settings.authType } : {}) }), null, 2));

    const env = toGeminiEnv({ base: process.env, home, ...(settings.passEnv ? { passEnv: settings.passEnv } : {}), ...(settings.env ? { env: settings.env } : {}) });
    const upstream = settings.baseUrl ?? env['GOOGLE_GEMINI_BASE_URL'] ?? DEFAULT_ENDPOINT;
    delete env['GOOGLE_GEMINI_BASE_URL'];
    let answer = '';
    const transcript: string[] = [];
    const seen: { result: GeminiResultEvent | null } = { result: null };
    let lastError: string | undefined;
    let turns = 0;
    const outcome = await cli.run({
      role: request.role, ...(request.onProgress ? { onProgress: request.onProgress } : {}), workDir: workspaceOf(request)?.path ?? projectRoot, binary, upstream, env, configHome: home,
      configure: (baseUrl) => ({
        args: toGeminiArgs({ ...gemini, model, ...(settings.extraArgs ? { extraArgs: settings.extraArgs } : {}) }),
        env: { ...env, GOOGLE_GEMINI_BASE_URL: baseUrl },
      }),
      // Trusted instructions first, then the task with its untrusted data blocks: the CLI has no system-prompt flag.
      input: `${prompt.system}\n\n---\n\n${prompt.user}\n`,
      timeoutMs: settings.timeoutMs ?? 30 * 60_000,
      killGraceMs: settings.killGraceMs ?? 2000,
      ...(request.signal ? { signal: request.signal } : {}),
      maxTokens: request.maxTokens,
      onLine(line) {
        const event = parseGeminiLine(line);
        if (!event) return;
        if (event.type === 'message' && event.role === 'assistant') {
          // Text after a tool call starts a new answer: the final message is the last turn's text.
          answer += event.content;
        }
        if (event.type === 'tool_use') {
          turns += 1;
          answer = '';
          transcript.push(`tool: ${event.tool_name} ${JSON.stringify(event.parameters ?? {}).slice(0, 200)}`);
        }
        if (event.type === 'error' && event.severity === 'error') lastError = event.message;
        if (event.type === 'result') seen.result = event;
      },
    });
    if (!outcome.ok) return outcome.result;
    const final = seen.result;
    if (answer) transcript.push(`assistant: ${answer.slice(0, 500)}`);
    transcript.push(...outcome.notes);
    const text = transcript.join('\n');
    const failed = final?.status === 'error' ? final.error?.message ?? lastError ?? 'the CLI reported an error' : lastError;
    const reason = exitReason(outcome.exit.exitCode);
    const mapped = mapCliResult({
      cli: 'Gemini CLI',
      role: request.role,
      text: answer,
      usage: outcome.usage,
      reportedCost: null,
      model,
      ...(settings.prices ? { prices: settings.prices } : {}),
      ...(failed && (final?.status !== 'success' || outcome.exit.exitCode !== 0) ? { error: { message: failed, ...(final?.error?.type ? { name: final.error.type } : {}) } } : {}),
      exitCode: outcome.exit.exitCode,
      signal: outcome.exit.signal,
      ...(outcome.exit.killedFor ? { stoppedFor: outcome.exit.killedFor } : {}),
      ...(reason ? { exitReason: reason } : {}),
      turns,
      maxTurns,
      maxTokens: request.maxTokens,
      stderrTail: outcome.exit.stderrTail,
      transcript: text.length > TRANSCRIPT_LIMIT ? `…${text.slice(-TRANSCRIPT_LIMIT)}` : text,
      authFix: AUTH_FIX,
    });
    return finishContainedResult(mapped, outcome);
  }

  return {
    specificationVersion: 'agent-backend-v2',
    name: 'gemini-cli',
    run,
    async close() {
      if (ownHome) await rm(await ownHome, { recursive: true, force: true });
      ownHome = undefined;
    },
  };
}
