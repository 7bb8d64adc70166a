import { PeriodicTask } from '#common';
import { CatalogSubjects, servicePrincipal } from '#contracts';
import { RpcClient } from '#nats';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { createTransport, type Transporter } from 'nodemailer';
import type { Logger } from 'pino';

import { AgentConfig } from '../agent.config.js';
import { LOGGER } from '../agent.tokens.js';
import type { ApprovalRecord } from './approval.mapper.js';
import { ApprovalUpkeepRepository } from './approval-upkeep.repository.js';
import { Approvals } from './approvals.service.js';

const BATCH = 100;
/** A claimed email not confirmed within this time (its sender died) is claimed again. */
const NOTIFY_LEASE_MS = 60_000;
const NOTIFY_MAX_ATTEMPTS = 5;
/** A decision's own wake gets this long before the upkeep wakes its run instead. */
const WAKE_GRACE_MS = 1_000;
/** An input is quoted in the email up to this many characters. */
const EMAIL_INPUT_MAX_CHARS = 2_000;

/**
 * Two duties that must survive a crash, driven by the approvals' rows. Waking: a decided approval
 * whose run was not woken (the runner was down, or the step had not come back as waiting yet) is
 * woken again until the runner takes it. Email: the organization's owners and admins are told, with
 * a link to the run, when a step starts waiting; without `SMTP_URL` the email is skipped with a log
 * line.
 */
@Injectable()
export class ApprovalUpkeep implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly task: PeriodicTask;
  private readonly mailer: Transporter | null;

  constructor(
    private readonly approvals: ApprovalUpkeepRepository,
    private readonly decisions: Approvals,
    private readonly rpc: RpcClient,
    private readonly config: AgentConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.mailer = config.SMTP_URL ? createTransport(config.SMTP_URL) : null;
    this.task = new PeriodicTask(
      config.APPROVAL_UPKEEP_INTERVAL_MS,
      async () => {
        // Apart: a runner that is down must not hold up the emails, nor a mail server the wakes.
        const [wakes, emails] = await Promise.allSettled([this.wakeDecided(), this.notifyAdmins()]);
        for (const failed of [wakes, emails]) {
          if (failed.status === 'rejected')
            logger.warn({ err: failed.reason }, 'approval upkeep failed; trying again');
        }
      },
      (error) => logger.warn({ err: error }, 'approval upkeep failed; trying again'),
    );
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.task.stop();
    this.mailer?.close();
  }

  /** New approvals are waiting: email now rather than at the next tick. */
  kick(): void {
    this.task.kick();
  }

  async wakeDecided(): Promise<void> {
    for (const step of await this.approvals.unwoken(WAKE_GRACE_MS, BATCH)) {
      await this.decisions
        .wake(step)
        .catch((error: unknown) =>
          this.logger.warn(
            { err: error, runId: step.runId },
            'waking a run after a decision failed; retrying',
          ),
        );
    }
  }

  async notifyAdmins(): Promise<void> {
    const claimed = await this.approvals.claimUnnotified(NOTIFY_LEASE_MS, NOTIFY_MAX_ATTEMPTS, BATCH);
    const byStep = new Map<string, ApprovalRecord[]>();
    for (const approval of claimed) {
      const key = `${approval.runId}\u0000${approval.nodeId}`;
      byStep.set(key, [...(byStep.get(key) ?? []), approval]);
    }
    for (const waiting of byStep.values()) {
      try {
        await this.email(waiting);
        await this.approvals.markNotified(waiting.map((approval) => approval.id));
      } catch (error) {
        // The claim lapses and a later tick tries again, a bounded number of times.
        this.logger.warn(
          { err: error, runId: waiting[0]?.runId },
          'emailing admins about an approval failed',
        );
      }
    }
  }

  private async email(waiting: ApprovalRecord[]): Promise<void> {
    const [first] = waiting;
    if (!first) return;
    const link = new URL(`/runs/${encodeURIComponent(first.runId)}`, this.config.PUBLIC_URL).toString();
    if (!this.mailer) {
      this.logger.info(
        { runId: first.runId, approvals: waiting.length, link },
        'an approval is waiting; SMTP_URL is not set, so no email was sent',
      );
      return;
    }
    const { emails } = await this.rpc.request(
      CatalogSubjects.adminEmails,
      servicePrincipal(first.organizationId),
      {},
    );
    if (emails.length === 0) return;
    const calls = waiting
      .map((approval) => {
        const input = JSON.stringify(approval.input, null, 2) ?? 'null';
        const quoted =
          input.length <= EMAIL_INPUT_MAX_CHARS ? input : `${input.slice(0, EMAIL_INPUT_MAX_CHARS)}…`;
        return `- ${approval.action}, waiting until ${approval.expiresAt.toISOString()}:\n${quoted}`;
      })
      .join('\n\n');
    await this.mailer.sendMail({
      from: this.config.SMTP_FROM,
      to: emails,
      subject: `Approval needed: ${first.workflowName}`,
      text:
        `An agent in the workflow "${first.workflowName}" waits for a decision before it acts:\n\n` +
        `${calls}\n\nApprove or deny it on the run: ${link}\n` +
        `Without a decision the approval expires and the step fails.\n`,
    });
  }
}
