/**
 * An account's collections: its Todoist projects, each a list of tasks. Archived and deleted projects are
 * left out. Labels are not collections: they travel on each task (`labels`, by name) and become its labels.
 */
import type { GetProjectsResponse } from "@doist/todoist-sdk";
import type { AccountConnection, RemoteCollection } from "../../../core/accounts/ports.ts";
import { openTodoistSession } from "./todoist-session.ts";
import type { WireOptions } from "./todoist-wire.ts";

/** The most the projects endpoint gives per page. */
const PAGE = 200;

export async function discoverProjects(
  connection: AccountConnection,
  options: WireOptions = {},
): Promise<RemoteCollection[]> {
  const session = openTodoistSession(connection, options);
  const collections: RemoteCollection[] = [];
  let cursor: string | null = null;
  do {
    const from: string | null = cursor;
    const page: GetProjectsResponse = await session.call("listing the projects", (api) =>
      api.getProjects({ cursor: from, limit: PAGE }),
    );
    for (const project of page.results) {
      if (project.isArchived || project.isDeleted) continue;
      collections.push({ remoteId: project.id, name: project.name, holds: ["tasks"] });
    }
    cursor = page.nextCursor;
  } while (cursor !== null);
  return collections;
}
