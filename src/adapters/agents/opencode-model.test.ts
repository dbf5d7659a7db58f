import { describe, expect, it } from 'vitest';
import { findPrice } from '../../../backends/shared/usage.js';
import { dailyTriagePattern } from '../../../test/fixtures/patterns.js';
import { buildPlan } from '../../core/plan/build-plan.js';
import { chooseOpenCodeModel, configuredModel, OPENCODE_KEY_PROVIDERS, openCodeProvider } from './opencode-model.js';

const ANTHROPIC = 'anthropic/claude-sonnet-5';
const OPENAI = 'openai/gpt-6-sol';

describe('the model an opencode loop with no model: runs', () => {
  it('is chosen from the provider whose key is set, Anthropic over OpenAI, and says why', () => {
    expect(chooseOpenCodeModel(undefined, { ANTHROPIC_API_KEY: 'sk-ant' })).toEqual({
      ok: true, model: ANTHROPIC, from: 'key', provider: OPENCODE_KEY_PROVIDERS[0], reason: `model ${ANTHROPIC} (ANTHROPIC_API_KEY is set; set model: to choose)`,
    });
    expect(chooseOpenCodeModel(undefined, { OPENAI_API_KEY: 'sk-oai' })).toMatchObject({ ok: true, model: OPENAI, from: 'key', reason: `model ${OPENAI} (OPENAI_API_KEY is set; set model: to choose)` });
    expect(chooseOpenCodeModel(undefined, { OPENAI_API_KEY: 'sk-oai', ANTHROPIC_API_KEY: 'sk-ant' })).toMatchObject({
      ok: true, model: ANTHROPIC, reason: `model ${ANTHROPIC} (ANTHROPIC_API_KEY is set, and wins over OPENAI_API_KEY; set model: to choose)`,
    });
  });

  it('a configured model always wins, whatever keys are set (the user named the endpoint)', () => {
    for (const env of [{}, { ANTHROPIC_API_KEY: 'sk-ant' }, { OPENAI_API_KEY: 'sk-oai' }]) {
      expect(chooseOpenCodeModel('openrouter/qwen/qwen3-coder', env)).toEqual({ ok: true, model: 'openrouter/qwen/qwen3-coder', from: 'configured' });
    }
  });

  it('no Anthropic or OpenAI key (an empty one counts as unset; another provider\'s key chooses nothing) is no model, with both fixes', () => {
    for (const env of [{}, { ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' }, { OPENROUTER_API_KEY: 'sk-or', GEMINI_API_KEY: 'g' }]) {
      const choice = chooseOpenCodeModel(undefined, env);
      expect(choice.ok).toBe(false);
      if (choice.ok) continue;
      expect(choice.message).toContain('neither ANTHROPIC_API_KEY nor OPENAI_API_KEY is set');
      expect(choice.fix).toBe(
        `set ANTHROPIC_API_KEY (runs ${ANTHROPIC}) or OPENAI_API_KEY (runs ${OPENAI}), or set \`model: <provider>/<model>\` in the loop-runtime: block of LOOP.md with that provider's key variable set.`,
      );
    }
  });

  it('reads the configured model from model: or the backend\'s model setting', () => {
    expect(configuredModel(buildPlan(dailyTriagePattern, { overrides: { backend: 'opencode' } }).backend)).toBeUndefined();
    expect(configuredModel(buildPlan(dailyTriagePattern, { overrides: { backend: 'opencode', model: 'openai/gpt-4.1' } }).backend)).toBe('openai/gpt-4.1');
    expect(configuredModel(buildPlan(dailyTriagePattern, { overrides: { backend: 'opencode', backendOptions: { model: 'anthropic/x' } } }).backend)).toBe('anthropic/x');
    // Both: the setting, as the backend is given it.
    expect(configuredModel(buildPlan(dailyTriagePattern, { overrides: { backend: 'opencode', model: 'openai/gpt-4.1', backendOptions: { model: 'anthropic/x' } } }).backend)).toBe('anthropic/x');
  });

  it('every model it can choose is priced, so the spend is costed as that model even when opencode reports no cost', () => {
    for (const { model } of OPENCODE_KEY_PROVIDERS) expect(findPrice(model.split('/').slice(1).join('/'))).not.toBeNull();
    expect(findPrice('claude-sonnet-5')).toEqual({ input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5 });
    expect(findPrice('gpt-6-sol')).toEqual({ input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5 });
  });
});

describe('the provider endpoint opencode is given', () => {
  it('is the provider\'s base-URL variable: ANTHROPIC_BASE_URL gets the /v1 opencode expects, OPENAI_BASE_URL is used as is', () => {
    for (const url of ['http://127.0.0.1:9/', 'http://127.0.0.1:9', 'http://127.0.0.1:9/v1']) {
      expect(openCodeProvider(ANTHROPIC, { ANTHROPIC_BASE_URL: url }, undefined)).toEqual({ anthropic: { options: { baseURL: 'http://127.0.0.1:9/v1' } } });
    }
    expect(openCodeProvider(OPENAI, { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }, undefined)).toEqual({ openai: { options: { baseURL: 'http://127.0.0.1:9/v1' } } });
  });

  it('only for the model\'s own provider, and never over the user\'s own provider block', () => {
    const env = { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', OPENAI_BASE_URL: 'http://127.0.0.1:8/v1' };
    expect(openCodeProvider(OPENAI, env, undefined)).toEqual({ openai: { options: { baseURL: 'http://127.0.0.1:8/v1' } } });
    expect(openCodeProvider('openrouter/qwen', env, undefined)).toBeUndefined();
    expect(openCodeProvider(undefined, env, undefined)).toBeUndefined();
    expect(openCodeProvider(ANTHROPIC, {}, undefined)).toBeUndefined();
    const user = { anthropic: { options: { baseURL: 'https://gateway.example/v1', timeout: 5 } }, fake: { npm: 'x' } };
    expect(openCodeProvider(ANTHROPIC, env, user)).toEqual(user);
    expect(openCodeProvider(ANTHROPIC, env, { anthropic: { options: { timeout: 5 } }, fake: { npm: 'x' } })).toEqual({
      anthropic: { options: { baseURL: 'http://127.0.0.1:9/v1', timeout: 5 } },
      fake: { npm: 'x' },
    });
  });
});
