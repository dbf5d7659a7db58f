/**
 * A classic-BPF seccomp filter that makes `socket(AF_INET | AF_INET6, …)`
 * (and io_uring, which can open sockets without `socket(2)`) fail with
 * EACCES. bubblewrap loads it with `--seccomp FD`; it is what separates
 * network "none" from "loopback" (both already run in a network namespace
 * of their own that holds only `lo`).
 *
 * Pure bytes: the adapter writes them to a file descriptor.
 */

export type SeccompArch = 'x64' | 'arm64';

const AUDIT_ARCH: Record<SeccompArch, number> = { x64: 0xc000003e, arm64: 0xc00000b7 };
const SOCKET_SYSCALL: Record<SeccompArch, number> = { x64: 41, arm64: 198 };
/** io_uring_setup has the same number on every architecture (unified syscall table). */
const IO_URING_SETUP = 425;
const X32_SYSCALL_BIT = 0x40000000;
const AF_INET = 2;
const AF_INET6 = 10;
const EACCES = 13;

const BPF_LD_W_ABS = 0x20;
const BPF_JMP_JEQ_K = 0x15;
const BPF_JMP_JGE_K = 0x35;
const BPF_RET_K = 0x06;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;

type Instruction = [code: number, jt: number, jf: number, k: number];

/** Whether a Node `process.arch` value has a filter (others fall back to a plain network namespace). */
export function seccompArchFor(nodeArch: string): SeccompArch | null {
  return nodeArch === 'x64' || nodeArch === 'arm64' ? nodeArch : null;
}

/**
 * The filter program as `struct sock_filter[]` bytes (little-endian).
 *
 * @example
 * ```ts
 * const program = denyInetSeccompProgram('x64'); // 96 bytes: 12 instructions
 * ```
 */
export function denyInetSeccompProgram(arch: SeccompArch): Uint8Array {
  const deny = SECCOMP_RET_ERRNO | EACCES;
  // Offsets in struct seccomp_data: nr at 0, arch at 4, args[0] (low word) at 16.
  const program: Instruction[] = [
    /* 0 */ [BPF_LD_W_ABS, 0, 0, 4],
    /* 1 */ [BPF_JMP_JEQ_K, 1, 0, AUDIT_ARCH[arch]],
    /* 2 */ [BPF_RET_K, 0, 0, deny], // foreign ABI (i386 via int 0x80): deny everything
    /* 3 */ [BPF_LD_W_ABS, 0, 0, 0],
    /* 4 */ [BPF_JMP_JGE_K, 6, 0, X32_SYSCALL_BIT], // x32 ABI → deny
    /* 5 */ [BPF_JMP_JEQ_K, 5, 0, IO_URING_SETUP], // → deny
    /* 6 */ [BPF_JMP_JEQ_K, 0, 3, SOCKET_SYSCALL[arch]], // not socket → allow
    /* 7 */ [BPF_LD_W_ABS, 0, 0, 16],
    /* 8 */ [BPF_JMP_JEQ_K, 2, 0, AF_INET], // → deny
    /* 9 */ [BPF_JMP_JEQ_K, 1, 0, AF_INET6], // → deny
    /* 10 */ [BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW],
    /* 11 */ [BPF_RET_K, 0, 0, deny],
  ];
  const bytes = new Uint8Array(program.length * 8);
  const view = new DataView(bytes.buffer);
  program.forEach(([code, jt, jf, k], index) => {
    const offset = index * 8;
    view.setUint16(offset, code, true);
    view.setUint8(offset + 2, jt);
    view.setUint8(offset + 3, jf);
    view.setUint32(offset + 4, k >>> 0, true);
  });
  return bytes;
}
