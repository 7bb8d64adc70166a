import { getMetadataStorage } from 'class-validator';

type Lookup = ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas'];

let memoized = false;

/**
 * Makes class-validator look a class's rules up once rather than on every validation. Its
 * `getTargetValidationMetadatas` scans every decorated class of the process for ancestors on each
 * call (typestack/class-validator#2686, open): in one process running every app, that scan over
 * hundreds of DTO classes cost more than the rest of a message's validation. A class's rules,
 * inherited ones included, are all registered when it is loaded, before anything can validate it,
 * and classes loaded later never change them, so the answer for given arguments never changes
 * (Twenty memoizes the same call, twentyhq/twenty#24085). Safe to call more than once.
 */
export function memoizeValidationMetadata(): void {
  if (memoized) return;
  memoized = true;
  const storage = getMetadataStorage();
  const lookup: Lookup = storage.getTargetValidationMetadatas.bind(storage);
  const answers = new WeakMap<object, Map<string, ReturnType<Lookup>>>();
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    const key = JSON.stringify([schema, always, strictGroups, groups ?? null]);
    let byArguments = answers.get(target);
    if (!byArguments) {
      byArguments = new Map();
      answers.set(target, byArguments);
    }
    let answer = byArguments.get(key);
    if (!answer) {
      answer = lookup(target, schema, always, strictGroups, groups);
      byArguments.set(key, answer);
    }
    return answer;
  };
}
