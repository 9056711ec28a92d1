// A long-lived service (a writer, a poll, a sweeper, an index): started once in a listed order,
// stopped in the reverse order, so what starts first (storage) stops last.
export interface Service {
  readonly name: string;
  start(): void | Promise<void>;
  stop(): Promise<void>;
}

export interface StartedServices {
  /** Resolves when every start that returned a promise has settled (a rejection is reported). */
  readonly ready: Promise<void>;
  /** Stops the started services in reverse order, each awaited; a failing stop is reported and the
   * rest still stop. Idempotent. */
  stop(): Promise<void>;
}

/** Starts `services` in order. A start that throws stops the ones already started (in reverse)
 * and the error is thrown on. */
export function startServices(services: readonly Service[], onError: (err: unknown, service: string) => void): StartedServices {
  const started: Service[] = [];
  const pending: Array<Promise<void>> = [];
  let stopping: Promise<void> | null = null;
  const stop = () => (stopping ??= stopServices(started, onError));
  for (const service of services) {
    let result: void | Promise<void>;
    try {
      result = service.start();
    } catch (err) {
      void stop();
      throw err;
    }
    started.push(service);
    if (result instanceof Promise) pending.push(result.catch((err) => onError(err, service.name)));
  }
  return { ready: Promise.all(pending).then(() => {}), stop };
}

/** Stops services in reverse order, each awaited; a failing stop is reported and the rest still
 * stop. Also for services never started through startServices (a partial close). */
export async function stopServices(services: readonly Service[], onError: (err: unknown, service: string) => void): Promise<void> {
  for (const service of [...services].reverse()) {
    try {
      await service.stop();
    } catch (err) {
      onError(err, service.name);
    }
  }
}
