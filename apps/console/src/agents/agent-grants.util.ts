import type { McpServerTool } from '../api/browser-routes';
import type { Schemas } from '../api/client';

/** An app grant as the API takes it: the refs the agent may use, and those it asks before using. */
export type Grant = Schemas['AppGrantDto'];

export function toggle(list: string[], value: string, on: boolean): string[] {
  return on ? [...new Set([...list, value])] : list.filter((item) => item !== value);
}

/** Picks or drops an action; a dropped one stops being ask-first too, as the API refuses that. */
export function setAction(grant: Grant, ref: string, on: boolean): Grant {
  return {
    ...grant,
    actions: toggle(grant.actions, ref, on),
    approvals: on ? grant.approvals : grant.approvals.filter((approval) => approval !== ref),
  };
}

export function setApproval(grant: Grant, ref: string, on: boolean): Grant {
  return { ...grant, approvals: toggle(grant.approvals, ref, on) };
}

/** One tool of an MCP connection the picker offers: `tool` is missing once its server stopped listing it. */
export interface McpToolChoice {
  ref: string;
  tool?: McpServerTool;
}

/**
 * What the picker offers for an `mcp` connection: each kept tool as `mcp__<name>`, then the granted
 * refs its server no longer lists. Those stay visible so they can be dropped: saving them is refused
 * (the grant check names each tool the list lacks), and a refresh may bring them back.
 */
export function mcpToolChoices(tools: McpServerTool[], granted: string[]): McpToolChoice[] {
  const offered = tools.map((tool) => ({ ref: `mcp__${tool.name}`, tool }));
  const listed = new Set(offered.map((choice) => choice.ref));
  return [...offered, ...granted.filter((ref) => !listed.has(ref)).map((ref) => ({ ref }))];
}
