// The soak's load: a few closed-loop lanes, each with its own keep-alive HTTP agent and
// WebSocket, drawing scenarios from the weighted mix with a seeded random stream (the same run
// every time), and counting each outcome per scenario.

import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { seededRandom } from '../load/arrival-schedule.js';
import type { ScenarioCount } from './soak-result.js';
import { OUTCOMES, type Lane, type Outcome, type Scenario } from './soak-scenarios.js';
import { SoakSocket } from './soak-socket.js';

const zero = (): Record<Outcome, number> => ({ ok: 0, rejected: 0, cancelled: 0, error: 0 });

export class SoakLoad {
  readonly #scenarios: readonly Scenario[];
  readonly #counts: Record<Outcome, number>[];
  readonly #samples: (string | null)[];
  readonly #totals = zero();
  #running = false;
  #lanes: Promise<void>[] = [];

  constructor(scenarios: readonly Scenario[]) {
    this.#scenarios = scenarios;
    this.#counts = scenarios.map(zero);
    this.#samples = scenarios.map(() => null);
  }

  /** Starts `lanes` loops against the server; each pauses `pauseMs` between requests. */
  start(host: string, port: number, lanes: number, pauseMs: number): void {
    this.#running = true;
    for (let i = 0; i < lanes; i += 1) this.#lanes.push(this.#loop(host, port, i + 1, pauseMs));
  }

  async stop(): Promise<void> {
    this.#running = false;
    await Promise.all(this.#lanes);
  }

  /** Cumulative counts by outcome. */
  totals(): Readonly<Record<Outcome, number>> {
    return { ...this.#totals };
  }

  byScenario(): ScenarioCount[] {
    return this.#scenarios.map((s, i) => ({
      name: s.name,
      kind: s.kind,
      counts: { ...(this.#counts[i] as Record<Outcome, number>) },
      errorSample: this.#samples[i] ?? null,
    }));
  }

  async #loop(host: string, port: number, seed: number, pauseMs: number): Promise<void> {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const wsUrl = `ws://${host}:${port}/v2/ws`;
    let socket: SoakSocket | null = null;
    const lane: Lane = {
      http: { host, port, agent },
      wsUrl,
      async socket() {
        if (socket === null || !socket.open) socket = await SoakSocket.open(wsUrl);
        return socket;
      },
    };
    const random = seededRandom(seed);
    const total = this.#scenarios.reduce((n, s) => n + s.weight, 0);
    const pick = (): number => {
      let r = random() * total;
      for (let i = 0; i < this.#scenarios.length; i += 1) {
        r -= (this.#scenarios[i] as Scenario).weight;
        if (r < 0) return i;
      }
      return this.#scenarios.length - 1;
    };
    while (this.#running) {
      const i = pick();
      const scenario = this.#scenarios[i] as Scenario;
      let outcome: Outcome;
      let detail: string | undefined;
      try {
        ({ outcome, detail } = await scenario.run(lane));
      } catch (e) {
        outcome = 'error';
        detail = e instanceof Error ? e.message : String(e);
      }
      (this.#counts[i] as Record<Outcome, number>)[outcome] += 1;
      this.#totals[outcome] += 1;
      if (outcome === 'error' && this.#samples[i] === null) this.#samples[i] = detail ?? '';
      if (pauseMs > 0) await sleep(pauseMs);
    }
    agent.destroy();
    await (socket as SoakSocket | null)?.close();
  }
}

export { OUTCOMES };
