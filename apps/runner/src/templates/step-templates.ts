import { limitFailures, type RunLimits } from '../engine/run-limits.util.js';
import { StepFailure } from '../executors/node-executor.js';
import { renderDeep, renderTemplate, type TemplateScope, TemplateTooLarge } from './template.util.js';

/**
 * Renders one step's properties within its limits: each property to at most `propertyMaxBytes`, and
 * all of them together to at most `stepInputMaxBytes`, rendering stopping at the first piece past
 * either. Past one, the step fails with a message naming the node and the property.
 */
export class StepTemplates {
  private left: number;

  constructor(
    private readonly nodeId: string,
    private readonly scope: TemplateScope,
    private readonly limits: Pick<RunLimits, 'propertyMaxBytes' | 'stepInputMaxBytes'>,
  ) {
    this.left = limits.stepInputMaxBytes;
  }

  /** `property` names the template in an error: `conditions[0].left`, `until`. */
  render(template: string, property: string): string {
    const { propertyMaxBytes } = this.limits;
    const limit = Math.min(propertyMaxBytes, this.left);
    let text: string;
    try {
      text = renderTemplate(template, this.scope, limit);
    } catch (error) {
      if (!(error instanceof TemplateTooLarge)) throw error;
      throw new StepFailure(
        limit === propertyMaxBytes
          ? limitFailures.property(this.nodeId, property, propertyMaxBytes)
          : limitFailures.templates(this.nodeId, property, this.limits.stepInputMaxBytes),
      );
    }
    this.left -= Buffer.byteLength(text);
    return text;
  }

  /** Every string leaf of `value`, each named from `property` (`input.body`). */
  renderDeep(value: unknown, property: string): unknown {
    return renderDeep(value, (template, path) => this.render(template, path), property);
  }
}
