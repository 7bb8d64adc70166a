import type { Diagram } from '../workflows/diagram.js';
import { validateDiagram } from '../workflows/validate-diagram.js';
import { DIAGRAM_NOTIFICATIONS_MAX, NOTIFICATION_TEXT_MAX_CHARS } from './notification-limits.js';
import { notificationText, runEndedText } from './notification.messages.js';
import { runNotificationsOf } from './run-notifications.js';

const withSettings = (settings: unknown): Diagram => ({
  nodes: [{ id: 't', data: { type: 'trigger', properties: { kind: 'api' } } }],
  edges: [],
  settings,
});

describe('settings.notifications', () => {
  it('is checked by the settings schema at publish: final statuses, at most ten entries', () => {
    const paths = (settings: unknown) => validateDiagram(withSettings(settings)).map((issue) => issue.path);
    expect(paths({ notifications: [{ endpointId: 'e1', statuses: ['errored', 'terminated'] }] })).toEqual([]);
    expect(paths({ notifications: [{ endpointId: 'e1', statuses: ['running'] }] })).toEqual([
      'settings.notifications.0.statuses.0',
    ]);
    expect(paths({ notifications: [{ endpointId: 'e1', statuses: [] }] })).toEqual([
      'settings.notifications.0.statuses',
    ]);
    expect(paths({ notifications: [{ statuses: ['errored'] }] })).toEqual([
      'settings.notifications.0.endpointId',
    ]);
    const many = Array.from({ length: DIAGRAM_NOTIFICATIONS_MAX + 1 }, (_, index) => ({
      endpointId: `e${index}`,
      statuses: ['complete'],
    }));
    expect(paths({ notifications: many })).toEqual(['settings.notifications']);
  });

  it('is read leniently for a run: what makes no sense is left out, and at most ten entries', () => {
    expect(runNotificationsOf(withSettings(undefined))).toEqual([]);
    expect(runNotificationsOf(withSettings({ notifications: 'all' }))).toEqual([]);
    expect(
      runNotificationsOf(
        withSettings({
          notifications: [
            null,
            { endpointId: 'e1', statuses: ['errored', 'running', 'errored'] },
            { endpointId: 'e2', statuses: ['paused'] },
            { endpointId: 'x'.repeat(201), statuses: ['errored'] },
            { endpointId: 'e3', statuses: 'complete' },
          ],
        }),
      ),
    ).toEqual([{ endpointId: 'e1', statuses: ['errored'] }]);
    const many = Array.from({ length: 12 }, (_, index) => ({
      endpointId: `e${index}`,
      statuses: ['complete'],
    }));
    expect(runNotificationsOf(withSettings({ notifications: many }))).toHaveLength(DIAGRAM_NOTIFICATIONS_MAX);
  });
});

describe('notificationText', () => {
  it('keeps short text, and cuts long text to the limit, never inside a surrogate pair', () => {
    expect(notificationText(null)).toEqual({ text: null, truncated: false });
    expect(notificationText('ok')).toEqual({ text: 'ok', truncated: false });
    const long = runEndedText('a'.repeat(10_000))!;
    expect(long).toHaveLength(NOTIFICATION_TEXT_MAX_CHARS + 1);
    expect(notificationText(long)).toEqual({
      text: 'a'.repeat(NOTIFICATION_TEXT_MAX_CHARS),
      truncated: true,
    });
    const emoji = `${'a'.repeat(NOTIFICATION_TEXT_MAX_CHARS - 1)}😀tail`;
    expect(notificationText(emoji)).toEqual({
      text: 'a'.repeat(NOTIFICATION_TEXT_MAX_CHARS - 1),
      truncated: true,
    });
  });
});
