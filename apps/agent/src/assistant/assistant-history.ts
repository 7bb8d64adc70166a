import type { DiagramIssue } from '#contracts';
import type { ModelMessage } from 'ai';

/** The turns a conversation sends the model again, the newest last. */
export const ASSISTANT_HISTORY_TURNS = 20;

/** The answer's text kept per turn, in characters. */
const ANSWER_MAX_CHARS = 8_000;

/**
 * One turn as the conversation keeps it: the member's question, the answer's text and the turn's last
 * proposal. Tool results are not kept: they are read again when needed, so a long conversation does
 * not send every schema and list it ever read with each new message.
 */
export interface AssistantTurnRecord {
  question: string;
  answer: string;
  proposal?: { name: string; valid: boolean; issues: DiagramIssue[]; diagram: unknown };
}

/**
 * The model messages of the earlier turns. Only the newest proposal's diagram is given whole (the one
 * the member would refine); earlier ones are named, not repeated.
 */
export function historyOf(turns: readonly AssistantTurnRecord[]): ModelMessage[] {
  const kept = turns.slice(-ASSISTANT_HISTORY_TURNS);
  const newest = kept.findLastIndex((turn) => turn.proposal !== undefined);
  return kept.flatMap((turn, index): ModelMessage[] => {
    const proposal = turn.proposal;
    const note = !proposal
      ? ''
      : index === newest
        ? `\n\n[I proposed "${proposal.name}" (${verdictOf(proposal)}). Its diagram: ${JSON.stringify(proposal.diagram)}]`
        : `\n\n[I proposed "${proposal.name}" (${verdictOf(proposal)}); a later proposal replaced it.]`;
    return [
      { role: 'user', content: turn.question },
      { role: 'assistant', content: `${turn.answer}${note}` || '(no answer)' },
    ];
  });
}

/** What a turn leaves in the conversation. */
export function turnRecordOf(
  question: string,
  answer: string,
  proposal: AssistantTurnRecord['proposal'],
): AssistantTurnRecord {
  return {
    question,
    answer: answer.length > ANSWER_MAX_CHARS ? `${answer.slice(0, ANSWER_MAX_CHARS)}…` : answer,
    ...(proposal ? { proposal } : {}),
  };
}

const verdictOf = (proposal: NonNullable<AssistantTurnRecord['proposal']>) =>
  proposal.valid
    ? 'valid'
    : `not valid: ${proposal.issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`;
