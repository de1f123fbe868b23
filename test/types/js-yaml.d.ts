// The part of js-yaml (4.x, which ships no types) the deployment tests use: YAML text to plain data.

declare module 'js-yaml' {
  export function load(text: string): unknown;
  export function loadAll(text: string): unknown[];
}
