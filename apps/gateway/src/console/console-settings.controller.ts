import { Controller, Get } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';

import { SessionOnly } from '../auth/session-only.decorator.js';
import { GatewayConfig } from '../gateway.config.js';

/** What the console needs to know of the gateway's settings. */
export interface ConsoleSettings {
  /** The trace viewer's URL with `{traceId}` to replace (`TRACE_VIEWER_URL`); null when not configured. */
  traceViewerUrl: string | null;
}

/**
 * The gateway's settings the console adapts to (docs/console.md): browser-only, for any signed-in
 * member, so not in the reference.
 */
@ApiExcludeController()
@SessionOnly()
@Controller('app/settings')
export class ConsoleSettingsController {
  constructor(private readonly config: GatewayConfig) {}

  @Get()
  get(): ConsoleSettings {
    return { traceViewerUrl: this.config.TRACE_VIEWER_URL ?? null };
  }
}
