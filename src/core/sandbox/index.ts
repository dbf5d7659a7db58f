export {
  AbsolutePathSchema,
  DEFAULT_HIDDEN_HOME_PATHS,
  DEFAULT_OUTPUT_LIMIT_BYTES,
  DEFAULT_TIMEOUT_MS,
  defaultProfile,
  isWithin,
  NETWORK_MODES,
  normalizePath,
  SandboxProfileSchema,
} from './sandbox-profile.js';
export type { DefaultProfileOptions, NetworkMode, SandboxProfile } from './sandbox-profile.js';
export {
  denylistVerificationProfile,
  isSafeReadableRoot,
  TOOLCHAIN_ENV,
  SYSTEM_READABLE_PATHS,
  verificationProfile,
} from './verification-profile.js';
export type { DenylistVerificationOptions, VerificationProfileOptions } from './verification-profile.js';
export { toBwrapArgs } from './to-bwrap-args.js';
export type { BwrapHostFacts, HostPathKind, SandboxCommand } from './to-bwrap-args.js';
export { toSeatbeltProfile } from './to-seatbelt-profile.js';
export type { SeatbeltOptions } from './to-seatbelt-profile.js';
export { denyInetSeccompProgram, seccompArchFor } from './seccomp-deny-inet.js';
export type { SeccompArch } from './seccomp-deny-inet.js';
