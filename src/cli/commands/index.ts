/**
 * Every CLI command, in help order. Each entry imports its handler lazily.
 * To add a command: write `src/cli/commands/<name>.ts` exporting a
 * `CommandDefinition`-compatible handler and append one entry here.
 */
import type { CommandDefinition } from '../command.js';

export const commands: CommandDefinition[] = [
  {
    name: 'run [id]',
    description: 'Run ticks of a loop now',
    options: [
      { flags: '--level <level>', description: 'Autonomy level L0-L3 (overrides the loop\'s configured level)' },
      { flags: '--dry-run', description: 'Mock backend, in-memory state and workspace: the repository stays byte-for-byte untouched' },
      { flags: '--ticks <n>', description: 'Number of ticks to run (stops early on a halt)' },
      { flags: '--backend <name>', description: 'Override the loop\'s backend (mock, claude-code, openai, ollama, or a module)' },
      { flags: '--allow-unsandboxed', description: 'Below L3, run verification commands without isolation when no sandbox is available (logged)' },
      { flags: '--due', description: 'Tick only the loops whose cadence says they are due (all configured loops, or just <id>), each under its lease' },
    ],
    examples: ['loop-runtime run daily-triage --level L2 --dry-run', 'loop-runtime run ci-sweeper --backend mock --ticks 3', 'loop-runtime run --due --json'],
    load: async () => (await import('./run.js')).runCommand,
  },
  {
    name: 'gate <action>',
    description: 'Check changed paths against gate.yaml (same flags and exit codes as loop-gate check)',
    options: [
      { flags: '--action <action>', description: 'commit | merge | auto-merge' },
      { flags: '--paths <paths>', description: 'Comma-separated changed file paths' },
      { flags: '--gate-file <file>', description: 'Policy file (default: gate.yaml)' },
    ],
    examples: ['loop-runtime gate check --action auto-merge --paths docs/a.md,README.md'],
    load: async () => (await import('./gate.js')).gateCommand,
  },
  {
    name: 'list',
    description: 'List the configured loops and the pattern catalogue (cadence, level, daily cap, source)',
    options: [],
    examples: ['loop-runtime list', 'loop-runtime list --json'],
    load: async () => (await import('./list.js')).listCommand,
  },
  {
    name: 'plan <id>',
    description: 'Show the execution plan for a loop without running it',
    options: [
      { flags: '--level <level>', description: 'Autonomy level L0-L3 (overrides the loop\'s configured level)' },
      { flags: '--backend <name>', description: 'Override the loop\'s backend' },
    ],
    examples: ['loop-runtime plan daily-triage', 'loop-runtime plan ci-sweeper --level L2 --json'],
    load: async () => (await import('./plan.js')).planCommand,
  },
  {
    name: 'validate',
    description: 'Check registry.yaml, LOOP.md, gate.yaml, loop-budget.md and loop-ledger.json; exit 3 on any error',
    options: [],
    examples: ['loop-runtime validate', 'loop-runtime validate --json'],
    load: async () => (await import('./validate.js')).validateCommand,
  },
  {
    name: 'status',
    description: "Today's spend per loop against its cap, kill-switch state and the last runs",
    options: [],
    examples: ['loop-runtime status', 'loop-runtime status --json'],
    load: async () => (await import('./status.js')).statusCommand,
  },
  {
    name: 'sandbox <action>',
    description: 'Run one command in the sandbox the verifier uses (the current directory is the writable worktree)',
    options: [
      { flags: '--write <dir>', description: 'Another writable directory (repeatable)' },
      { flags: '--net <mode>', description: 'none (default: no IP sockets) or loopback (own lo only)' },
      { flags: '--timeout <seconds>', description: 'Kill the command and its children after this many seconds (default 600)' },
      { flags: '--allow-unsandboxed', description: 'Run without isolation when no sandbox is available (logged)' },
    ],
    examples: ['loop-runtime sandbox run -- npm test', 'loop-runtime sandbox run --net loopback --timeout 60 -- sh -c "curl -s localhost:3000"'],
    load: async () => (await import('./sandbox.js')).sandboxCommand,
  },
  {
    name: 'state <action>',
    description: 'Persist runtime state on a branch for ephemeral CI runners: state pull (before ticks) | state push (after)',
    options: [
      { flags: '--remote <name>', description: 'Git remote (default: origin)' },
      { flags: '--branch <name>', description: 'State branch (default: loop-runtime-state)' },
    ],
    examples: ['loop-runtime state pull', 'loop-runtime state push --remote origin --branch loop-runtime-state'],
    load: async () => (await import('./state.js')).stateCommand,
  },
  {
    name: 'ci <action> [file]',
    description: 'ci init: write a GitHub Actions workflow for the configured loops; ci summary <file.json>: job summary and annotations from run --json',
    options: [
      { flags: '--force', description: 'ci init: overwrite an existing workflow' },
      { flags: '--dry-run', description: 'ci init: print the workflow, a crontab line and systemd units; write nothing' },
      { flags: '--print-cron', description: 'ci init: print only a crontab line for a server' },
      { flags: '--print-systemd', description: 'ci init: print only a systemd service + timer for a server' },
      { flags: '--cron <expr>', description: 'ci init: use this schedule for every loop instead of one derived from cadences' },
      { flags: '--state-branch <name>', description: 'ci init: the state branch (default: loop-runtime-state)' },
      { flags: '--no-state', description: 'ci init: keep no state between runs (not recommended)' },
      { flags: '--package <spec>', description: 'ci init: install loop-runtime from this pinned git URL or tarball (when the project does not depend on it)' },
      { flags: '--exit-code <n>', description: 'ci summary: the exit code of the run that wrote the file' },
    ],
    examples: ['loop-runtime ci init', 'loop-runtime ci init --dry-run', 'loop-runtime ci summary result.json --exit-code 0'],
    load: async () => (await import('./ci.js')).ciCommand,
  },
  {
    name: 'approve <id>',
    description: 'Apply an escalated change after re-running the gate on its current diff (commit, push/PR as the loop allows)',
    options: [{ flags: '--yes', description: 'Apply even though the gate still escalates (your decision)' }],
    examples: ['loop-runtime approve mock-1-mwqao1r1', 'loop-runtime approve issue#42 --yes'],
    load: async () => (await import('./approve.js')).approveCommand,
  },
  {
    name: 'reject <id>',
    description: 'Discard an escalated change (or a verified change whose delivery failed): its worktree and branch',
    options: [],
    examples: ['loop-runtime reject mock-1-mwqao1r1'],
    load: async () => (await import('./reject.js')).rejectCommand,
  },
  {
    name: 'deliver <id>',
    description: 'Retry the delivery (push / pull request) of a verified commit whose delivery failed; never runs the agent',
    options: [],
    examples: ['loop-runtime deliver mock-1-mwqao1r1', 'loop-runtime deliver issue#42 --json'],
    load: async () => (await import('./deliver.js')).deliverCommand,
  },
  {
    name: 'inbox',
    description: 'List what waits for a human: escalated changes (approve/reject) and verified commits whose delivery failed (deliver)',
    options: [],
    examples: ['loop-runtime inbox', 'loop-runtime inbox --json'],
    load: async () => (await import('./inbox.js')).inboxCommand,
  },
  {
    name: 'outcomes <action> [id]',
    description: 'outcomes sync: follow delivered changes (merged, closed, reverted, open; checks) and apply each loop\'s autonomy policy; no model call',
    options: [],
    examples: ['loop-runtime outcomes sync', 'loop-runtime outcomes sync ci-sweeper --json'],
    load: async () => (await import('./outcomes.js')).outcomesCommand,
  },
  {
    name: 'metrics [id]',
    description: 'Acceptance, revert and escalation rates, tokens and cost per tick / proposed / merged change, no-ops, time to merge; promotion advice',
    options: [
      { flags: '--since <window>', description: 'Window: 12h, 30d (default), 2w or a date' },
      { flags: '--no-audit', description: 'Do not run loop-audit (no promotion will be recommended)' },
    ],
    examples: ['loop-runtime metrics', 'loop-runtime metrics ci-sweeper --since 7d --json'],
    load: async () => (await import('./metrics.js')).metricsCommand,
  },
  {
    name: 'promote <id>',
    description: 'Raise a loop one level in its LOOP.md after showing the evidence (needs --yes)',
    options: [{ flags: '--yes', description: 'Apply the promotion (your decision)' }],
    examples: ['loop-runtime promote ci-sweeper', 'loop-runtime promote ci-sweeper --yes'],
    load: async () => (await import('./promote.js')).promoteCommand,
  },
  {
    name: 'reset <id>',
    description: 'Remove what mock runs of a loop wrote: mock spend, attempts, run-log lines, state blocks, loop/<id>/mock-* branches and worktrees',
    options: [{ flags: '--mock', description: 'Required: only rehearsal data (written with backend mock) is removed' }],
    examples: ['loop-runtime reset daily-triage --mock'],
    load: async () => (await import('./reset.js')).resetCommand,
  },
  {
    name: 'serve',
    description: 'The operator console: a local web page and JSON/SSE API over one or more repositories (--cwd, repeatable)',
    options: [
      { flags: '--port <port>', description: 'Port to listen on (default 4317; 0 picks a free one)' },
      { flags: '--host <host>', description: 'Address to bind (default 127.0.0.1; anything else needs --expose)' },
      { flags: '--expose', description: 'Allow binding an address other machines can reach (prints a warning)' },
      { flags: '--read-only', description: 'Refuse every change: no approve, reject, pause or resume' },
    ],
    examples: ['loop-runtime serve', 'loop-runtime serve --cwd ../api --cwd ../web --port 8080', 'loop-runtime serve --read-only'],
    load: async () => (await import('./serve.js')).serveCommand,
  },
  {
    name: 'doctor',
    description: 'Check each configured loop can run here: its backend and why, the agent CLI and version, credentials (never printed), the sandbox; exit 3 on a problem',
    options: [],
    examples: ['loop-runtime doctor', 'loop-runtime doctor --json'],
    load: async () => (await import('./doctor.js')).doctorCommand,
  },
];
