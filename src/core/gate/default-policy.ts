/**
 * The gate policy without a gate.yaml. Its own module so plan compilation
 * (`list`, `plan`) does not load minimatch, which only matching needs.
 */
import type { GatePolicy } from '../plan/execution-plan.js';

/** The methodology's recommended policy, used when a project has no gate.yaml. */
export const DEFAULT_GATE_POLICY: GatePolicy = {
  source: 'built-in default (no gate.yaml)',
  denylist: [
    '.env',
    '.env.*',
    '**/secrets/**',
    '**/credentials/**',
    '**/*_key*',
    '**/*_secret*',
    '.terraform/**',
    'k8s/production/**',
    '**/migrations/**',
    'auth/**',
    'payments/**',
    'billing/**',
  ],
  maxFiles: 10,
  autoMergeAllowlist: ['docs/**', '**/*.md'],
};
