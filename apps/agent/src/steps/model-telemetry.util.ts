import { recordContent, SERVICE_ATTRIBUTE, tracingEnabled } from '#common';
import type { TelemetrySettings } from 'ai';

/**
 * The AI SDK's own OpenTelemetry spans for a model call (docs/tracing.md): `ai.generateText` /
 * `ai.streamText` and one `….doGenerate` / `….doStream` per model request, children of the active
 * span, with the model, the finish reason and the token counts. Prompts, tool arguments and outputs
 * are recorded only when an operator sets `OTEL_RECORD_CONTENT=true`. Off with tracing.
 */
export function modelTelemetry(functionId: string, metadata: Record<string, string>): TelemetrySettings {
  if (!tracingEnabled()) return { isEnabled: false };
  const content = recordContent();
  return {
    isEnabled: true,
    recordInputs: content,
    recordOutputs: content,
    functionId,
    metadata: { [SERVICE_ATTRIBUTE]: 'agent', ...metadata },
  };
}
