// The unix datagram socket the notify protocol travels on: datagrams arrive whole, errors come back
// as rejections, and the kernel stamps each datagram with this process's PID, which is what
// systemd's NotifyAccess=main checks (read here by a python3 receiver with SO_PASSCRED, since Node
// cannot read ancillary data).

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { UnixDatagramSocket } from '../../../src/cli/unix-datagram.js';
import { datagramsUnavailable } from '../../helpers/notify-receiver.js';
import { waitFor } from '../../helpers/wait-for.js';

/** Receives one datagram on argv[1] and prints the sender's PID from SCM_CREDENTIALS. */
const CREDENTIALS_RECEIVER = `
import socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
s.bind(sys.argv[1])
print("bound", flush=True)
msg, anc, _, _ = s.recvmsg(4096, socket.CMSG_SPACE(12))
for level, kind, data in anc:
    if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
        print("pid", struct.unpack("iII", data[:12])[0], msg.decode(), flush=True)
`;

const python3 = spawnSync('python3', ['--version']).status === 0;

void describe('UnixDatagramSocket', { skip: datagramsUnavailable() }, () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'infernode-dgram-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  void it('delivers each datagram whole to a bound socket', async () => {
    const receiver = new UnixDatagramSocket();
    const got: string[] = [];
    receiver.onMessage((m) => got.push(m.toString('utf8')));
    const at = path.join(dir, 'roundtrip.sock');
    receiver.bind(at);
    const sender = new UnixDatagramSocket();
    await sender.send(Buffer.from('READY=1\nSTATUS=one'), at);
    await sender.send(Buffer.from('WATCHDOG=1'), at);
    await waitFor(
      () => got.length,
      (n) => n === 2,
      5000,
    );
    assert.deepEqual(got, ['READY=1\nSTATUS=one', 'WATCHDOG=1']);
    sender.close();
    receiver.close();
  });

  void it('rejects a send to a path nobody is bound to, and any send once closed', async () => {
    const s = new UnixDatagramSocket();
    await assert.rejects(s.send(Buffer.from('x'), path.join(dir, 'nobody.sock')), /No such file/);
    s.close();
    s.close();
    await assert.rejects(s.send(Buffer.from('x'), path.join(dir, 'nobody.sock')), /closed/);
  });

  void it(
    "stamps each datagram with this process's PID",
    { skip: python3 ? false : 'python3 is not installed: nothing here reads SCM_CREDENTIALS' },
    async () => {
      const at = path.join(dir, 'credentials.sock');
      const child = spawn('python3', ['-c', CREDENTIALS_RECEIVER, at], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
      const exited = new Promise((r) => child.on('exit', r));
      const bound = await waitFor(
        () => out.includes('bound'),
        (b) => b,
        10_000,
      );
      assert.ok(bound, 'the receiver bound its socket');
      const s = new UnixDatagramSocket();
      await s.send(Buffer.from('READY=1'), at);
      s.close();
      await exited;
      assert.match(out, new RegExp(`^pid ${process.pid} READY=1$`, 'm'));
    },
  );
});
