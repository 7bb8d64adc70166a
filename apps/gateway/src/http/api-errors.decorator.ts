import { ERROR_STATUS, type ErrorCode } from '#common';
import { ErrorDto } from '#contracts';
import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';

/** Codes every authenticated route may answer. */
const COMMON: ErrorCode[] = [
  'unauthorized',
  'no_active_organization',
  'forbidden',
  'rate_limited',
  'internal',
];

/** Documents each error a route answers, grouped by status, all in the contract's error shape. */
export function ApiErrors(...codes: ErrorCode[]): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...codes, ...COMMON]) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return applyDecorators(
    ...[...byStatus].map(([status, statusCodes]) =>
      ApiResponse({ status, type: ErrorDto, description: `error.code: ${statusCodes.join(', ')}` }),
    ),
  );
}
