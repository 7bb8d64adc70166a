import { DomainException } from '#common';
import { type Principal, RunnerSubjects, WorkflowSubjects, type WorkflowRunDto } from '#contracts';
import { RpcClient } from '#nats';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { Body, Controller, Delete, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';

import { CurrentPrincipal } from '../auth/principal.decorator.js';
import { GatewayConfig } from '../gateway.config.js';
import { LiveHolds } from '../runs/live-holds.js';
import { LiveRuns } from '../runs/live-runs.service.js';
import { RunWatcher } from '../runs/run-watcher.service.js';
import { callResultOf, runInputOf, type WorkflowTool, workflowTools } from './workflow-tools.js';

const SERVER_INFO = { name: 'flowmesh', version: '1.0.0' };

/** A call whose run changes nothing for this long gets a progress notification anyway. */
const MCP_PROGRESS_INTERVAL_MS = 5_000;

const toolError = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });

/**
 * The organization's published workflows that opt in (`settings.mcp.enabled`) as the tools of an MCP
 * server (docs/mcp.md, "Workflows as tools"): Streamable HTTP, stateless (a server per request, no
 * session), authenticated like every API route. A call starts an `api` run of the live version,
 * waits for it as `Prefer: wait` does with a progress notification at each change of the run, and
 * answers its reply, or its error as a tool error.
 */
@ApiExcludeController()
@Controller('mcp')
export class McpController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly live: LiveRuns,
    private readonly watcher: RunWatcher,
    private readonly holds: LiveHolds,
    private readonly config: GatewayConfig,
  ) {}

  @Post()
  async post(
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Body() body: unknown,
  ): Promise<void> {
    const server = this.serverFor(principal);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await transport.handleRequest(request.raw, reply.raw, body);
  }

  /** A stateless server opens no stream of its own and keeps no session to end. */
  @Get()
  @HttpCode(405)
  stream(@Res({ passthrough: true }) reply: FastifyReply) {
    void reply.header('allow', 'POST');
    return methodNotAllowed();
  }

  @Delete()
  @HttpCode(405)
  end(@Res({ passthrough: true }) reply: FastifyReply) {
    void reply.header('allow', 'POST');
    return methodNotAllowed();
  }

  private serverFor(principal: Principal): Server {
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: {} },
      instructions:
        "Each tool runs one of the organization's workflows and answers its reply; a run that fails answers its error.",
    });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: (await this.tools(principal)).map(({ tool }) => tool),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const found = (await this.tools(principal)).find(({ tool }) => tool.name === request.params.name);
      if (!found) throw new McpError(ErrorCode.InvalidParams, `No tool named ${request.params.name}.`);
      const progressToken = request.params._meta?.progressToken;
      let progress = 0;
      return this.call(principal, found, request.params.arguments ?? {}, extra.signal, (run) => {
        if (progressToken === undefined) return;
        progress += 1;
        void extra
          .sendNotification({
            method: 'notifications/progress',
            params: { progressToken, progress, message: `run ${run.runId}: ${run.status}` },
          })
          .catch(() => undefined);
      });
    });
    return server;
  }

  private async tools(principal: Principal): Promise<WorkflowTool[]> {
    const { tools } = await this.rpc.request(WorkflowSubjects.mcpTools, principal, {});
    return workflowTools(tools);
  }

  /**
   * Starts the run and waits for it. What the service refuses (the plan's monthly runs, a paused or
   * deleted workflow) is a tool error the model can read, not a protocol error.
   */
  private async call(
    principal: Principal,
    { workflow }: WorkflowTool,
    args: Record<string, unknown>,
    signal: AbortSignal,
    changed: (notice: { runId: string; status: string }) => void,
  ): Promise<CallToolResult> {
    const began = Date.now();
    const input = runInputOf(workflow, args);
    if ('problem' in input) return toolError(input.problem);
    let run: WorkflowRunDto;
    try {
      ({ run } = await this.rpc.request(RunnerSubjects.runsStart, principal, {
        workflowId: workflow.workflowId,
        input: input.input,
        draft: false,
        triggerNodeId: workflow.triggerNodeId,
        trigger: 'api',
      }));
    } catch (error) {
      if (error instanceof DomainException) return toolError(`${error.code}: ${error.message}`);
      throw error;
    }
    const seconds = this.config.MCP_TOOL_WAIT_SECONDS;
    const release = this.holds.take(principal.organizationId);
    if (!release) return callResultOf(run, { seconds: 0, awaitsDecision: false });
    let status: string = run.status;
    const stopWatching = await this.watcher.watch(run.id, (notice) => {
      if (!notice) return;
      status = notice.status;
      changed(notice);
    });
    // A run may change nothing for long (a long step, a delay): the client still hears it is alive,
    // which also restarts the timeout of clients that reset it on progress.
    const runId = run.id;
    const ticking = setInterval(() => changed({ runId, status }), MCP_PROGRESS_INTERVAL_MS);
    try {
      run = await this.live.waitFor(principal, run.id, began + seconds * 1000, signal, run);
      const awaitsDecision =
        run.status === 'waiting' &&
        (await this.rpc.request(RunnerSubjects.runsNextWake, principal, { id: run.id })).awaitsDecision;
      return callResultOf(run, { seconds, awaitsDecision });
    } finally {
      clearInterval(ticking);
      stopWatching();
      release();
    }
  }
}

function methodNotAllowed() {
  return {
    jsonrpc: '2.0',
    error: {
      code: ErrorCode.ConnectionClosed,
      message: 'Method not allowed: this MCP server takes POST only.',
    },
    id: null,
  };
}
