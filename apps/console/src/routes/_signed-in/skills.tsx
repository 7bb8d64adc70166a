import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { useState } from 'react';

import { api, type Schemas, unwrap } from '../../api/client';
import { ErrorNotice, formatTime, PageHeader, QueryView } from '../../components/ui';
import { SkillForm } from '../../skills/skill-form';

type Skill = Schemas['SkillDto'];

/** Skills: named instruction sets mounted on agents; list, create, edit, delete. */
export const Route = createFileRoute('/_signed-in/skills')({ component: SkillsPage });

function SkillsPage() {
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
