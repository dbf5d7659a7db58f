import type { AbortSignalLike } from '../ports/abort-signal.js';
import type { BudgetBreaker } from '../budget/budget-breaker.js';
import type {
  AgentBackend,
  AttemptLedger,
  Clock,
  CommandRunner,
  Delivery,
  Discovery,
  EngineObserver,
  IdGenerator,
  InstructionDocument,
  ItemLeases,
  KillSwitch,
  StateWriter,
  TickLease,
  Workspace,
} from '../ports/index.js';

/**
 * Everything a `LoopEngine` works through. The ports that decide whether a
 * tick may act — workspace, attempt history, kill switch — and time and ids
 * are required: the engine has no defaults, so a caller can never get a
 * silent in-memory ledger or an absent kill switch by forgetting a port.
 * `createMemoryPorts()` in `loop-runtime/testing` gives a complete in-memory set.
 */
export interface EnginePorts {
  backend: AgentBackend;
  state: StateWriter;
  budget: BudgetBreaker;
  workspace: Workspace;
  /** Attempt history shared by the loops of one repository; the engine reads only its own loop's records. */
  attempts: AttemptLedger;
  killSwitch: KillSwitch;
  /** The only time source of the core (no wall clock inside `src/core`). */
  clock: Clock;
  ids: IdGenerator;
  /** Runs the plan's verification commands (and the implementer's), sandboxed by the adapter. */
  commands?: CommandRunner;
  /** Deterministic probes before any model call. */
  discovery?: Discovery;
  /** Push / pull request / merge after a commit. Absent: commits stay on a local branch. */
  delivery?: Delivery;
  /** Trusted instruction documents for every agent call. */
  instructions?: readonly InstructionDocument[];
  observer?: EngineObserver;
  /** Optional item leases: two loops never act on the same item at once. */
  items?: ItemLeases;
  /**
   * The operator's stop (Ctrl-C): passed to every backend call and command; once aborted, the running call's
   * spend is settled, no further call starts, and the tick ends `paused` by `interrupt`.
   */
  signal?: AbortSignalLike;
  /**
   * The loop lease the tick runs under. When set, every write to shared state first checks it is still held
   * (`fenceTickPorts`); a tick whose lease was taken over ends `halted` with reason `lease-lost`.
   */
  lease?: TickLease;
}
