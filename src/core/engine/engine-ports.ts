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
  Workspace,
} from '../ports/index.js';

/**
 * Everything a `LoopEngine` works through. Only `backend`, `state` and
 * `budget` are required; the rest default to in-memory adapters (a memory
 * workspace, no kill switch, memory attempt history, a wall clock).
 */
export interface EnginePorts {
  backend: AgentBackend;
  state: StateWriter;
  budget: BudgetBreaker;
  workspace?: Workspace;
  clock?: Clock;
  ids?: IdGenerator;
  killSwitch?: KillSwitch;
  attempts?: AttemptLedger;
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
}
