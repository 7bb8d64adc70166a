import { DomainException, toValidationIssues, type ValidationIssue } from '#common';
import { type Principal, PrincipalMessage, type RequestClass, type RpcSubject } from '#contracts';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { LRUCache } from 'lru-cache';

/** A message that does not have its subject's shape: refused whole, and logged by the RPC server. */
export class MalformedMessageException extends DomainException {
  constructor(subject: string, issues: ValidationIssue[]) {
    super('invalid_request', `The message on ${subject} is not valid (see details.issues).`, { issues });
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Checks `value` against `type` (unknown fields dropped) and answers the class instance, or the
 * issues found, each with its path under `path` ('' for paths from the request's own fields).
 */
export function validateAs<T extends object>(
  type: RequestClass<T>,
  value: unknown,
  path: string,
): { value: T; issues: [] } | { value?: undefined; issues: ValidationIssue[] } {
  if (!isObject(value)) return { issues: [{ path, message: `${path || 'the request'} must be an object` }] };
  const instance = plainToInstance(type, value);
  const errors = validateSync(instance, { whitelist: true, forbidUnknownValues: false });
  if (errors.length === 0) return { value: instance, issues: [] };
  return { issues: toValidationIssues(errors, path) };
}

/**
 * Principals found valid before, by their four fields. A service's callers are few (an organization's
 * keys and members), and class-validator spends on each check about as long as the rest of a project
 * read takes in catalog (it looks the class's rules up again on every call; docs/benchmarks.md). The
 * check depends on the four values alone, so a principal whose fields equal a checked one's is valid.
 */
const validPrincipals = new LRUCache<string, true>({ max: 10_000 });

/** The four fields as one string, when each has a type a valid principal's field can have. */
function principalKey(value: unknown): string | undefined {
  if (!isObject(value)) return undefined;
  const { organizationId, userId, keyId, role } = value;
  if (typeof organizationId !== 'string' || typeof role !== 'string') return undefined;
  if ((userId !== null && typeof userId !== 'string') || (keyId !== null && typeof keyId !== 'string')) {
    return undefined;
  }
  return JSON.stringify([organizationId, userId, keyId, role]);
}

/** The validated principal of a message that must carry one: its four fields, nothing else. */
export function readPrincipal(subject: string, value: unknown): Principal {
  const key = principalKey(value);
  if (key !== undefined && validPrincipals.has(key)) {
    const { organizationId, userId, keyId, role } = value as unknown as Principal;
    return { organizationId, userId, keyId, role };
  }
  const checked = validateAs(PrincipalMessage, value, 'principal');
  if (checked.value === undefined) throw new MalformedMessageException(subject, checked.issues);
  if (key !== undefined) validPrincipals.set(key, true);
  return checked.value;
}

/**
 * Reads a `{principal, data}` message of `entry`: the request validated against its class, and the
 * caller when the subject carries one. Nothing of a malformed message reaches a handler.
 */
export function readMessage<TRequest extends object, TCaller extends Principal | null>(
  entry: RpcSubject<TRequest, unknown, TCaller>,
  message: unknown,
): { request: TRequest; caller: TCaller } {
  const packet = isObject(message) ? message : {};
  const caller = (entry.carriesPrincipal ? readPrincipal(entry.bare, packet.principal) : null) as TCaller;
  const checked = validateAs(entry.request, packet.data, '');
  if (checked.value === undefined) throw new MalformedMessageException(entry.bare, checked.issues);
  return { request: checked.value, caller };
}
