// The gRPC flags as the command line parses them (parseArgs): defaults, each flag's accepted
// spellings and values, and the exact refusal of each bad value. Tested through parseArgs only, so
// the tests hold wherever a flag's own parser lives.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_OPTIONS,
  helpText,
  parseArgs,
  type ServerOptions,
} from '../../../src/cli/server-options.js';

const REPO = '--model-repository=/models';

/** The options parsed from `flags` (with a repository, which every command line needs). */
const parse = (...flags: string[]): ServerOptions => parseArgs([REPO, ...flags]).options;

/** parseArgs refuses `flags` with exactly `message`. */
function refuses(flags: readonly string[], message: string): void {
  assert.throws(() => parseArgs([REPO, ...flags]), { message }, flags.join(' '));
}

void describe('gRPC flags', () => {
  void it("default to Triton's: gRPC on, 0.0.0.0:8001, no compression, its keepalive, 64 MiB", () => {
    const o = parse();
    assert.equal(o.allowGrpc, true);
    assert.equal(o.grpcAddress, '0.0.0.0');
    assert.equal(o.grpcPort, 8001);
    assert.equal(o.grpcInferResponseCompressionLevel, 'none');
    assert.equal(o.grpcKeepaliveTimeMs, 7_200_000);
    assert.equal(o.grpcKeepaliveTimeoutMs, 20_000);
    assert.equal(o.grpcMaxInputSize, 64 * 1024 * 1024);
    assert.deepEqual(o.grpcRestrictedProtocols, []);
    for (const key of Object.keys(DEFAULT_OPTIONS) as (keyof ServerOptions)[]) {
      if (key.startsWith('grpc') || key === 'allowGrpc') {
        assert.deepEqual(o[key], DEFAULT_OPTIONS[key], `${key} is its documented default`);
      }
    }
  });

  void it('--allow-client-shm is off unless given, as in Triton 26.04+; the caps are read', () => {
    const d = parse();
    assert.equal(d.allowClientShm, false);
    assert.equal(d.clientShmMaxRegions, 1024);
    assert.equal(d.clientShmMaxBytes, 16 * 1024 ** 3);
    const o = parse(
      '--allow-client-shm=true',
      '--client-shm-max-regions=3',
      '--client-shm-max-bytes=4096',
    );
    assert.equal(o.allowClientShm, true);
    assert.equal(o.clientShmMaxRegions, 3);
    assert.equal(o.clientShmMaxBytes, 4096);
    assert.equal(parse('--allow-client-shm').allowClientShm, true);
  });

  void it('--cache-config is repeatable and frozen; --response-cache-byte-size is its old spelling', () => {
    assert.equal(parse().cacheConfig, undefined);
    const o = parse('--cache-config', 'local,size=4096');
    assert.deepEqual(o.cacheConfig, { kind: 'local', size: 4096 });
    assert.ok(Object.isFrozen(o.cacheConfig));
    // Later values of a setting win, as in Triton.
    const twice = parse('--cache-config=local,size=1', '--cache-config=local,size=2048');
    assert.deepEqual(twice.cacheConfig, { kind: 'local', size: 2048 });
    const old = parseArgs([REPO, '--response-cache-byte-size=512']);
    assert.deepEqual(old.options.cacheConfig, { kind: 'local', size: 512 });
    assert.deepEqual(old.warnings, [
      '--response-cache-byte-size is deprecated; use --cache-config local,size=<bytes>',
    ]);
    refuses(
      ['--cache-config=local'],
      "--cache-config: expected <cache>,<key>=<value>, got 'local'",
    );
    refuses(
      ['--cache-config=memcached,size=1'],
      "--cache-config: unknown cache 'memcached' (supported: local, redis)",
    );
  });

  void it('--allow-grpc: true or false in every boolean spelling, a bare flag meaning true', () => {
    assert.equal(parse('--allow-grpc=false').allowGrpc, false);
    assert.equal(parse('--allow-grpc', 'false').allowGrpc, false);
    assert.equal(parse('--allow-grpc=0').allowGrpc, false);
    assert.equal(parse('--allow-grpc=off').allowGrpc, false);
    assert.equal(parse('--allow-grpc=no').allowGrpc, false);
    assert.equal(parse('--allow-grpc=true').allowGrpc, true);
    assert.equal(parse('--allow-grpc=ON').allowGrpc, true);
    // A bare --allow-grpc is true, and the next flag is not taken as its value.
    const bare = parse('--allow-grpc', '--grpc-port=9001');
    assert.equal(bare.allowGrpc, true);
    assert.equal(bare.grpcPort, 9001);
    // The last one given wins.
    assert.equal(parse('--allow-grpc=false', '--allow-grpc=true').allowGrpc, true);
    refuses(['--allow-grpc=maybe'], "--allow-grpc: expected true or false, got 'maybe'");
  });

  void it('--grpc-address and --grpc-port: any address, ports 0 (the OS picks) to 65535', () => {
    assert.equal(parse('--grpc-address=127.0.0.1').grpcAddress, '127.0.0.1');
    assert.equal(parse('--grpc-address', '::1').grpcAddress, '::1');
    // The gRPC address does not follow --http-address (unlike the metrics address).
    assert.equal(parse('--http-address=127.0.0.1').grpcAddress, '0.0.0.0');
    assert.equal(parse('--grpc-port=0').grpcPort, 0);
    assert.equal(parse('--grpc-port', '65535').grpcPort, 65535);
    for (const bad of ['65536', '-1', '80a', '1.5', '']) {
      refuses(
        [`--grpc-port=${bad}`],
        `--grpc-port: expected an integer between 0 and 65535, got '${bad}'`,
      );
    }
    refuses(['--grpc-port'], 'flag --grpc-port needs a value');
  });

  void it('--grpc-infer-response-compression-level: none, low, med or high, as spelled', () => {
    for (const level of ['none', 'low', 'med', 'high'] as const) {
      assert.equal(
        parse(`--grpc-infer-response-compression-level=${level}`).grpcInferResponseCompressionLevel,
        level,
      );
    }
    for (const bad of ['gzip', 'HIGH', 'medium', '']) {
      refuses(
        [`--grpc-infer-response-compression-level=${bad}`],
        `--grpc-infer-response-compression-level: expected none, low, med or high, got '${bad}'`,
      );
    }
  });

  void it('--grpc-keepalive-time and --grpc-keepalive-timeout: whole milliseconds', () => {
    const o = parse('--grpc-keepalive-time=30000', '--grpc-keepalive-timeout', '5000');
    assert.equal(o.grpcKeepaliveTimeMs, 30_000);
    assert.equal(o.grpcKeepaliveTimeoutMs, 5000);
    assert.equal(parse('--grpc-keepalive-time=0').grpcKeepaliveTimeMs, 0);
    for (const flag of ['grpc-keepalive-time', 'grpc-keepalive-timeout']) {
      for (const bad of ['-1', '1.5', '10s', '1e3']) {
        refuses(
          [`--${flag}=${bad}`],
          `--${flag}: expected an integer between 0 and ${Number.MAX_SAFE_INTEGER}, got '${bad}'`,
        );
      }
    }
  });

  void it('--grpc-max-input-size: 1 to 2^31 - 1 bytes (grpc-js takes a signed 32-bit length)', () => {
    assert.equal(parse('--grpc-max-input-size=1').grpcMaxInputSize, 1);
    assert.equal(parse('--grpc-max-input-size=2147483647').grpcMaxInputSize, 2 ** 31 - 1);
    refuses(['--grpc-max-input-size=0'], '--grpc-max-input-size: expected an integer >= 1, got 0');
    refuses(
      ['--server-name=a b'],
      "--server-name: expected 1 to 64 letters, digits, '.', '_' or '-', got 'a b'",
    );
    // Triton refuses to start with it, in these words; 0 would refuse every request body.
    refuses(['--http-max-input-size=0'], 'Error: --http-max-input-size must be greater than 0.');
    // qa/L0_http's test.sh starts Triton with -1024 and expects the same words.
    refuses(
      ['--http-max-input-size=-1024'],
      'Error: --http-max-input-size must be greater than 0.',
    );
    refuses(
      ['--grpc-max-input-size=2147483648'],
      "--grpc-max-input-size: expected an integer between 0 and 2147483647, got '2147483648'",
    );
    refuses(
      ['--grpc-max-input-size=64MiB'],
      "--grpc-max-input-size: expected an integer between 0 and 2147483647, got '64MiB'",
    );
  });

  void it('--grpc-restricted-protocol: repeatable, each a list of protocols, a key and a value', () => {
    const o = parse(
      '--grpc-restricted-protocol=health,metadata:Probe-Key=p',
      '--grpc-restricted-protocol',
      'model-repository:admin=s3=cr:et',
    );
    assert.deepEqual(o.grpcRestrictedProtocols, [
      { protocols: ['health', 'metadata'], header: 'triton-grpc-protocol-probe-key', value: 'p' },
      // The value is everything after the first '=', '=' and ':' included.
      {
        protocols: ['model-repository'],
        header: 'triton-grpc-protocol-admin',
        value: 's3=cr:et',
      },
    ]);
    assert.ok(Object.isFrozen(o.grpcRestrictedProtocols));
  });

  void it('--grpc-restricted-protocol: refuses a malformed rule and an unknown protocol', () => {
    const shape = (got: string): string =>
      `--grpc-restricted-protocol: expected <protocol>[,<protocol>...]:<key>=<value>, got '${got}'`;
    for (const bad of ['inference', 'inference:key', ':key=value', 'inference:=value', '']) {
      refuses([`--grpc-restricted-protocol=${bad}`], shape(bad));
    }
    const groups =
      'health, metadata, inference, shared-memory, model-config, model-repository, statistics, ' +
      'trace, logging';
    refuses(
      ['--grpc-restricted-protocol=inference,infer:k=v'],
      `--grpc-restricted-protocol: unknown protocol 'infer'; expected one of ${groups}`,
    );
    refuses(
      ['--grpc-restricted-protocol=Health:k=v'],
      `--grpc-restricted-protocol: unknown protocol 'Health'; expected one of ${groups}`,
    );
  });
});

void describe('HTTP connection limit flags', () => {
  void it('default to uWS 20.30 fixed behaviour: 10 s head, body silence and idle; no cap', () => {
    const o = parse();
    assert.equal(o.httpHeaderTimeoutSecs, 10);
    assert.equal(o.httpBodyTimeoutSecs, 10);
    assert.equal(o.httpIdleTimeoutSecs, 10);
    assert.equal(o.httpMaxConnections, 0);
    assert.equal(DEFAULT_OPTIONS.httpMaxConnections, 0);
  });
  void it('take whole seconds and a connection count', () => {
    const o = parse(
      '--http-header-timeout-secs=3',
      '--http-body-timeout-secs=60',
      '--http-idle-timeout-secs=120',
      '--http-max-connections=5000',
    );
    assert.deepEqual(
      [o.httpHeaderTimeoutSecs, o.httpBodyTimeoutSecs, o.httpIdleTimeoutSecs, o.httpMaxConnections],
      [3, 60, 120, 5000],
    );
  });
  void it('refuse a zero timeout (it would close every connection at once)', () => {
    refuses(
      ['--http-header-timeout-secs=0'],
      '--http-header-timeout-secs: expected an integer >= 1, got 0',
    );
    refuses(
      ['--http-idle-timeout-secs=0'],
      '--http-idle-timeout-secs: expected an integer >= 1, got 0',
    );
  });
});

void describe('--server-name', () => {
  void it('reports infernode by default and what it is given, for clients that check the name', () => {
    assert.equal(parseArgs([REPO]).options.serverName, 'infernode');
    assert.equal(parseArgs([REPO, '--server-name=triton']).options.serverName, 'triton');
  });
});

void describe('--help', () => {
  void it('says what each front end does with an over-size WebSocket frame', () => {
    // Issue 33: it said 1009 for both, but uWebSockets.js drops the connection (clients see 1006),
    // as docs/websocket-protocol.md says.
    const line = helpText()
      .split('\n')
      .find((l) => l.includes('--ws-max-frame-size'));
    assert.ok(line !== undefined);
    assert.match(line, /1009 on the node front end/);
    assert.match(line, /uWS drops the connection \(clients see 1006\)/);
  });

  void it('lists the validate subcommand (issue 32)', () => {
    assert.match(helpText(), /^Commands:\n {2}validate +Check a candidate model version/m);
    assert.match(helpText(), /infernode validate --model-repository=<dir> --model=<name>/);
  });
});
