// The ceiling: the same machine's bare Fastify answering the same JSON, no auth, no NATS, no database.
import Fastify from 'fastify';

const project = {
  id: '01a1fda9-ac47-73ca-aacb-8e38ce781792',
  name: 'Bench project',
  description: null,
  createdBy: null,
  createdAt: '2026-11-21T10:31:57.764Z',
  updatedAt: '2026-11-21T10:31:57.764Z',
};

const app = Fastify({ logger: false });
app.get('/api/v1/projects/:id', async () => project);
app.post('/api/v1/projects', async (_request, reply) => reply.status(201).send(project));
await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ port: (app.server.address() as { port: number }).port })}\n`);
