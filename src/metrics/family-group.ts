// The base of each group of metric families that the catalog (metrics-catalog.ts) is made of: the
// registry they all register on. A base class because the groups create their families in field
// initializers, in the order /metrics lists them, and a subclass's initializers run only after the
// base constructor has set `registry` (a parameter property of the group itself would be set after).

import type { Registry } from 'prom-client';

export abstract class FamilyGroup {
  constructor(protected readonly registry: Registry) {}
}
