/**
 * The program that runs first inside the agent's sandbox (with the host's
 * node): it listens on the sandbox's own 127.0.0.1 at a fixed port, pipes each
 * connection to the model proxy's Unix socket (bound in from outside), then
 * starts the agent and relays its exit. The port is fixed because the sandbox
 * has its own network namespace (nothing else can hold it), so a backend can
 * write the model URL into the CLI's config before the launch.
 *
 * Arguments: `<socket> <port> -- <program> [args…]`.
 */

/** Where the model endpoint is inside every agent sandbox. */
export const BRIDGE_PORT = 47_800;

export const BRIDGE_SCRIPT = `
import net from 'node:net';
import { spawn } from 'node:child_process';
const [socketPath, port, separator, ...argv] = process.argv.slice(2);
if (separator !== '--' || argv.length === 0) {
  process.stderr.write('sandbox bridge: usage: <socket> <port> -- <program> [args...]\\n');
  process.exit(2);
}
const server = net.createServer((client) => {
  const upstream = net.connect(socketPath);
  const end = () => { client.destroy(); upstream.destroy(); };
  client.on('error', end);
  upstream.on('error', end);
  client.pipe(upstream);
  upstream.pipe(client);
});
server.on('error', (error) => {
  process.stderr.write('sandbox bridge: cannot listen on 127.0.0.1:' + port + ': ' + error.message + '\\n');
  process.exit(125);
});
server.listen(Number(port), '127.0.0.1', () => {
  const child = spawn(argv[0], argv.slice(1), { stdio: 'inherit' });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('error', (error) => {
    process.stderr.write('sandbox bridge: cannot start ' + argv[0] + ': ' + error.message + '\\n');
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    server.close();
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exit(code ?? 1);
  });
});
`;
