import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import { api, type Schemas, unwrap } from '../api/client';
import { ErrorNotice, Field, SaveOrCancel } from '../components/ui';

type Skill = Schemas['SkillDto'];

/** A new skill (for the organization or for oneself), or an existing one to edit. */
export function SkillForm({ skill, onDone }: { skill: Skill | null; onDone: () => void }) {
  const client = useQueryClient();
  const [name, setName] = useState(skill?.name ?? '');
  const [description, setDescription] = useState(skill?.description ?? '');
  const [instructions, setInstructions] = useState(skill?.instructions ?? '');
  const [owner, setOwner] = useState<'organization' | 'me'>('organization');
  const save = useMutation({
    mutationFn: () =>
      skill
        ? unwrap(
            api.PATCH('/api/v1/skills/{id}', {
              params: { path: { id: skill.id } },
              body: { name, description, instructions },
            }),
          )
        : unwrap(api.POST('/api/v1/skills', { body: { name, description, instructions, owner } })),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['skills'] });
      onDone();
    },
  });
  return (
    <form
      className="card"
      aria-label={skill ? `Edit ${skill.name}` : 'New skill'}
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate();
      }}
    >
      <h2 style={{ marginTop: 0 }}>{skill ? `Edit ${skill.name}` : 'New skill'}</h2>
      <Field label="Name" hint="Lowercase letters, numbers and single hyphens.">
        {(id) => (
          <input
            id={id}
            value={name}
            required
            maxLength={64}
            pattern="[a-z0-9]+(-[a-z0-9]+)*"
            onChange={(e) => setName(e.target.value)}
          />
        )}
      </Field>
      <Field label="Description">
        {(id) => (
          <input
            id={id}
            value={description}
            required
            maxLength={1024}
            onChange={(e) => setDescription(e.target.value)}
          />
        )}
      </Field>
      <Field label="Instructions">
        {(id) => (
          <textarea id={id} value={instructions} required onChange={(e) => setInstructions(e.target.value)} />
        )}
      </Field>
      {skill ? null : (
        <Field label="Visible to">
          {(id) => (
            <select id={id} value={owner} onChange={(e) => setOwner(e.target.value as 'organization' | 'me')}>
              <option value="organization">Everyone in the organization</option>
              <option value="me">Only me</option>
            </select>
          )}
        </Field>
      )}
      <ErrorNotice error={save.error} title="Could not save the skill." />
      <SaveOrCancel label="Save skill" pending={save.isPending} onCancel={onDone} />
    </form>
  );
}
