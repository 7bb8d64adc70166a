import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';

import type { NodeExecutor } from './node-executor.js';

/** Marks a provider as the executor of one node type; the registry finds it at start-up. */
export const NodeExecutorProvider = DiscoveryService.createDecorator<void>();

/**
 * Node type → executor. Executors are discovered, so the agent, action and database issues add a
 * provider to the runner module and the engine is untouched.
 */
@Injectable()
export class NodeExecutorRegistry implements OnModuleInit {
  private readonly executors = new Map<string, NodeExecutor>();

  constructor(private readonly discovery: DiscoveryService) {}

  onModuleInit(): void {
    for (const wrapper of this.discovery.getProviders({ metadataKey: NodeExecutorProvider.KEY })) {
      this.register(wrapper.instance as NodeExecutor);
    }
  }

  register(executor: NodeExecutor): void {
    const existing = this.executors.get(executor.type);
    if (existing && existing !== executor) {
      throw new Error(`two executors claim node type "${executor.type}"`);
    }
    this.executors.set(executor.type, executor);
  }

  get(type: string): NodeExecutor | undefined {
    return this.executors.get(type);
  }

  types(): string[] {
    return [...this.executors.keys()];
  }
}
