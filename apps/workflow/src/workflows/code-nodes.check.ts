import {
  CODE_PARAMETERS,
  type CodeLanguage,
  type Diagram,
  type DiagramIssue,
  type Principal,
} from '#contracts';
import { codeSyntaxProblem } from '#sandbox';
import { Injectable } from '@nestjs/common';

import type { PublishCheck } from './publish-check.js';

/**
 * A code node's body must compile: the sandbox's own compiler (QuickJS, after sucrase strips the
 * types of TypeScript) checks it without running it, so publish refuses what every run would fail on.
 * Compiling takes about a millisecond for everyday code and runs nothing of it.
 */
@Injectable()
export class CodeNodesCheck implements PublishCheck {
  async check(_principal: Principal, diagram: Diagram): Promise<DiagramIssue[]> {
    const issues: DiagramIssue[] = [];
    for (const [index, node] of diagram.nodes.entries()) {
      if (node.data.type !== 'code') continue;
      const { code, language = 'javascript' } = node.data.properties as {
        code: string;
        language?: CodeLanguage;
      };
      const problem = await codeSyntaxProblem(code, language, CODE_PARAMETERS);
      if (!problem) continue;
      issues.push({
        nodeId: node.id,
        path: `nodes.${index}.data.properties.code`,
        message: `node "${node.id}": the code does not compile${problem.line === undefined ? '' : ` at line ${problem.line}`}: ${problem.message}`,
      });
    }
    return issues;
  }
}
