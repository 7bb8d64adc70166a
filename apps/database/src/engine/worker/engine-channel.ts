import { DomainException } from '#common';

import { DatabaseFileMissingError, EngineStoppingError } from '../engine.errors.js';
import type { EngineCall, EngineEvent, ServiceCall, WireError, WireMessage } from './engine.messages.js';

/** The channel closed (the other process ended) before the call was answered. */
export class ChannelClosedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChannelClosedError';
  }
}

function toWire(error: unknown): WireError {
  if (error instanceof DomainException) {
    return { name: error.name, message: error.message, code: error.code, details: error.details };
  }
  if (error instanceof DatabaseFileMissingError) {
    return { name: error.name, message: error.message, path: error.path };
  }
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

function fromWire(error: WireError): Error {
  if (error.code !== undefined) return new DomainException(error.code, error.message, error.details);
  switch (error.name) {
    case 'DatabaseFileMissingError':
      return new DatabaseFileMissingError(error.path ?? '');
    case 'EngineStoppingError':
      return new EngineStoppingError();
  }
  const plain = new Error(error.message);
  plain.name = error.name;
  return plain;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/**
 * Calls and answers over a child process's IPC channel, in both directions: `Out` are the calls this
 * side makes (answered with `Results`), `In` those it serves. Errors cross with their code, so a
 * DomainException thrown in the worker is one in the service.
 */
export class EngineChannel<
  Out extends EngineCall | ServiceCall,
  Results extends Record<Out['op'], unknown>,
  In extends EngineCall | ServiceCall,
> {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private closed: ChannelClosedError | undefined;

  constructor(
    private readonly send: (message: WireMessage, sent: (error: Error | null) => void) => void,
    private readonly serve: (call: In) => Promise<unknown>,
    private readonly onEvent: (event: EngineEvent) => void = () => undefined,
  ) {}

  call<C extends Out>(call: C): Promise<Results[C['op']]> {
    if (this.closed) return Promise.reject(this.closed);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.post({ type: 'call', id, call }, (error) => {
        this.pending.delete(id);
        reject(error);
      });
    });
  }

  emit(event: EngineEvent): void {
    this.post({ type: 'event', event }, () => undefined);
  }

  receive(message: WireMessage): void {
    switch (message.type) {
      case 'call':
        void this.answer(message.id, message.call as In);
        return;
      case 'reply': {
        const pending = this.pending.get(message.id);
        if (!pending) return;
        this.pending.delete(message.id);
        if (message.ok) pending.resolve(message.value);
        else pending.reject(fromWire(message.error));
        return;
      }
      case 'event':
        this.onEvent(message.event);
        return;
      case 'ready':
        return;
    }
  }

  /** The other side is gone: every call waiting for it fails with `error`, and later calls too. */
  close(error: ChannelClosedError): void {
    this.closed = error;
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }

  private async answer(id: number, call: In): Promise<void> {
    let reply: WireMessage;
    try {
      reply = { type: 'reply', id, ok: true, value: (await this.serve(call)) ?? null };
    } catch (error) {
      reply = { type: 'reply', id, ok: false, error: toWire(error) };
    }
    this.post(reply, () => undefined);
  }

  private post(message: WireMessage, failed: (error: Error) => void): void {
    this.send(message, (error) => {
      if (error) failed(this.closed ?? new ChannelClosedError(`The engine channel failed: ${error.message}`));
    });
  }
}
