// Deep freezing for configs: once loaded, a ModelConfig is shared by every request and worker plan,
// so nothing may mutate it.

/** Freezes `value` and everything reachable from it; returns it typed as deeply readonly data. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Reflect.ownKeys(value)) {
      deepFreeze((value as Record<string | symbol, unknown>)[key]);
    }
  }
  return value;
}
