import type { IntegrationId } from '#contracts';

import type { McpToolListRepository } from '../mcp/mcp-tool-list.repository.js';
import type { OutboundHttp } from '../outbound/outbound-http.js';
import type { AppProvider } from './app-provider.js';
import { HttpProvider } from './http.provider.js';
import { McpProvider } from './mcp.provider.js';
import { SlackProvider } from './slack.provider.js';
import { WebhookProvider } from './webhook.provider.js';

/** The integrations this service runs itself, by id. */
export class AppProviders {
  private readonly providers: Map<IntegrationId, AppProvider>;
  readonly mcp: McpProvider;

  constructor(http: OutboundHttp, toolLists: McpToolListRepository) {
    this.mcp = new McpProvider(http, toolLists);
    const all: AppProvider[] = [
      new HttpProvider(http),
      new WebhookProvider(http),
      new SlackProvider(http),
      this.mcp,
    ];
    this.providers = new Map(all.map((provider) => [provider.id, provider]));
  }

  get(id: IntegrationId): AppProvider {
    const provider = this.providers.get(id);
    if (!provider) throw new Error(`no provider for ${id}`);
    return provider;
  }
}
