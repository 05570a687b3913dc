import cluster from 'node:cluster';
import type { CheckedBuild } from './build-check.ts';
import type { BuildKeeper } from './build-keeper.ts';
import type { BuildListener, BuildSource, ReloadRecord } from './build-source.ts';

/** The environment variable a forked worker finds its first build in (set by the primary, not by people). */
export const BUILD_ENV = 'HCAS_SERVING_BUILD';

const BUILD = 'hcas:build';
const FAILED = 'hcas:build-failed';
const WANTED = 'hcas:build-wanted';
const RELOAD = 'hcas:reload';

type Message =
  | { type: typeof BUILD; build: CheckedBuild; reason: string }
  | { type: typeof FAILED; record: ReloadRecord; damaged: boolean }
  | { type: typeof WANTED; file: string; identity: string }
  | { type: typeof RELOAD; reason: string };

/** What a worker is told when it is forked: its first build, the file's name and the last failed attempt. */
interface Handover {
  file: string;
  build: CheckedBuild;
  failed?: ReloadRecord;
  damaged: boolean;
}

/**
 * In the cluster primary: tells every worker of each new build (they swap to it) and each failed attempt
 * (their `/readyz` says degraded), and takes the file again when a worker is sent SIGHUP. Returns the
 * environment of a new worker: the build to open first.
 */
export function shareBuilds(keeper: BuildKeeper): () => Record<string, string> {
  const broadcast = (message: Message) => {
    for (const worker of Object.values(cluster.workers ?? {})) if (worker?.isConnected()) worker.send(message);
  };
  keeper.subscribe({
    build: (build, reason) => broadcast({ type: BUILD, build, reason }),
    failed: (record) => broadcast({ type: FAILED, record, damaged: keeper.damaged() }),
  });
  cluster.on('message', (worker, message: Message) => {
    if (message?.type === RELOAD) void keeper.refresh(message.reason);
    // A worker that started while a swap was under way may have missed it: it says which build it opened.
    const { current } = keeper;
    if (message?.type === WANTED && (message.file !== current.file || message.identity !== current.identity) && worker.isConnected()) {
      worker.send({ type: BUILD, build: current, reason: 'startup' } satisfies Message);
    }
  });
  return () => {
    const failed = keeper.lastAttempt?.ok === false ? keeper.lastAttempt : undefined;
    const handover: Handover = { file: keeper.file, build: keeper.current, failed, damaged: keeper.damaged() };
    return { [BUILD_ENV]: JSON.stringify(handover) };
  };
}

/** In a cluster worker: the builds the primary checks and hands out. */
export class PrimaryBuilds implements BuildSource {
  readonly file: string;
  readonly first: CheckedBuild;
  private isDamaged: boolean;
  private readonly failedFirst: ReloadRecord | undefined;

  private constructor(handover: Handover) {
    this.file = handover.file;
    this.first = handover.build;
    this.isDamaged = handover.damaged;
    this.failedFirst = handover.failed;
  }

  /** The primary's handover, in a worker it forked; undefined elsewhere. */
  static fromEnvironment(env: NodeJS.ProcessEnv = process.env): PrimaryBuilds | undefined {
    const text = env[BUILD_ENV];
    return cluster.isWorker && text ? new PrimaryBuilds(JSON.parse(text) as Handover) : undefined;
  }

  damaged(): boolean {
    return this.isDamaged;
  }

  subscribe(listener: BuildListener): void {
    if (this.failedFirst) listener.failed(this.failedFirst);
    process.on('message', (message: Message) => {
      if (message?.type === BUILD) {
        this.isDamaged = false;
        listener.build(message.build, message.reason);
      } else if (message?.type === FAILED) {
        this.isDamaged = message.damaged;
        listener.failed(message.record);
      }
    });
    process.send?.({ type: WANTED, file: this.first.file, identity: this.first.identity } satisfies Message);
  }

  refresh(reason: string): void {
    process.send?.({ type: RELOAD, reason } satisfies Message);
  }

  close(): void {}
}
