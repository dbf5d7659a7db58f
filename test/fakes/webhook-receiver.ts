/** A webhook receiver on 127.0.0.1 that records each POSTed JSON body; `status` and `hang` shape its answer. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WebhookReceiver {
  url: string;
  bodies: unknown[];
  /** Resolves when `count` bodies have arrived. */
  received(count: number): Promise<unknown[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(options: { status?: number; hang?: boolean } = {}): Promise<WebhookReceiver> {
  const bodies: unknown[] = [];
  const waiters: Array<{ count: number; resolve: (bodies: unknown[]) => void }> = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      for (const waiter of waiters.filter((candidate) => bodies.length >= candidate.count)) waiter.resolve([...bodies]);
      if (options.hang) return;
      response.writeHead(options.status ?? 200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/services/T000/B000/secret-part`,
    bodies,
    received: (count) => (bodies.length >= count ? Promise.resolve([...bodies]) : new Promise((resolve) => waiters.push({ count, resolve }))),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A URL on 127.0.0.1 where nothing listens (a port bound, then released). */
export async function unreachableUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/hook`;
}
