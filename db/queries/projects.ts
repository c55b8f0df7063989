import { and, asc, eq, or, sql } from "drizzle-orm";
import { NotFoundError } from "../../src/core/errors.ts";
import type { Database } from "../client.ts";
import { type Project, type ProjectStatus, projects } from "../schema/index.ts";

export async function listProjects(db: Database, userId: number, status?: ProjectStatus): Promise<Project[]> {
  const mine = eq(projects.userId, userId);
  return db
    .select()
    .from(projects)
    .where(status ? and(mine, eq(projects.status, status)) : mine)
    .orderBy(asc(projects.name));
}

/** Case-insensitive match on name or summary. */
export async function searchProjects(
  db: Database,
  userId: number,
  query: string,
  limit = 10,
): Promise<Project[]> {
  const pattern = `%${escapeLike(query)}%`;
  return db
    .select()
    .from(projects)
    .where(
      and(
        eq(projects.userId, userId),
        or(sql`${projects.name} ilike ${pattern}`, sql`${projects.summary} ilike ${pattern}`),
      ),
    )
    .orderBy(asc(projects.name))
    .limit(limit);
}

export async function findProjectByName(
  db: Database,
  userId: number,
  name: string,
): Promise<Project | undefined> {
  const [project] = await db
    .select()
    .from(projects)
    .where(and(eq(projects.userId, userId), sql`lower(${projects.name}) = lower(${name})`))
    .limit(1);
  return project;
}

export async function createProject(
  db: Database,
  values: { userId: number; name: string; summary?: string; status?: ProjectStatus },
): Promise<Project> {
  const [project] = await db.insert(projects).values(values).returning();
  if (!project) throw new Error("project insert returned nothing");
  return project;
}

export async function updateProject(
  db: Database,
  userId: number,
  id: number,
  changes: { name?: string; summary?: string; status?: ProjectStatus },
  now: Date,
): Promise<Project> {
  const [project] = await db
    .update(projects)
    .set({ ...changes, updatedAt: now })
    .where(and(eq(projects.userId, userId), eq(projects.id, id)))
    .returning();
  if (!project) throw new NotFoundError(`no project ${id}`);
  return project;
}

/** Deletes one of the user's projects (its tasks keep existing, without a project). */
export async function deleteProject(db: Database, userId: number, id: number): Promise<Project> {
  const [project] = await db
    .delete(projects)
    .where(and(eq(projects.userId, userId), eq(projects.id, id)))
    .returning();
  if (!project) throw new NotFoundError(`no project ${id}`);
  return project;
}

export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
