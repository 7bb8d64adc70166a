import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import { api, type Schemas, unwrap } from '../api/client';
import { ErrorNotice, Field, formatTime, PageHeader, QueryView, SaveOrCancel } from '../components/ui';

type Skill = Schemas['SkillDto'];

/** Skills: named instruction sets mounted on agents; list, create, edit, delete. */
export function SkillsPage() {
  const client = useQueryClient();
  const [editing, setEditing] = useState<Skill | 'new' | null>(null);
  const query = useQuery({
    queryKey: ['skills'],
    queryFn: () => unwrap(api.GET('/api/v1/skills', { params: { query: { limit: 100 } } })),
  });
  const remove = useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/api/v1/skills/{id}', { params: { path: { id } } })),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['skills'] }),
  });
  return (
    <>
      <PageHeader title="Skills">
        <button type="button" onClick={() => setEditing('new')}>
          New skill
        </button>
      </PageHeader>
      {editing ? (
        <SkillForm
          key={editing === 'new' ? 'new' : editing.id}
          skill={editing === 'new' ? null : editing}
          onDone={() => setEditing(null)}
        />
      ) : null}
      <ErrorNotice error={remove.error} title="Could not delete the skill." />
      <QueryView query={query} isEmpty={(page) => page.data.length === 0} empty="No skills yet.">
        {(page) => (
          <div className="table-wrap" tabIndex={0}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Description</th>
                  <th scope="col">Owner</th>
                  <th scope="col">Updated</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((skill) => (
                  <tr key={skill.id}>
                    <td>
                      <code>{skill.name}</code>
                    </td>
                    <td>{skill.description}</td>
                    <td>{skill.userId ? 'me' : 'organization'}</td>
                    <td>{formatTime(skill.updatedAt)}</td>
                    <td className="row">
                      <button type="button" className="secondary" onClick={() => setEditing(skill)}>
                        Edit {skill.name}
                      </button>
                      <button
                        type="button"
                        className="danger"
                        onClick={() => {
                          if (window.confirm(`Delete the skill ${skill.name}?`)) remove.mutate(skill.id);
                        }}
                      >
                        Delete {skill.name}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryView>
    </>
  );
}

function SkillForm({ skill, onDone }: { skill: Skill | null; onDone: () => void }) {
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
