/**
 * A task list of `count` realistic VTODOs on Radicale. Written straight into Radicale's storage folder, as
 * a bulk import would land there: 500 PUTs take over a minute here (Radicale syncs each one to disk), the
 * files a fraction of a second. One PROPFIND then lets Radicale build its item cache (about 15 s for 500
 * on this machine) before anything is measured; a running server has that cache already.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Radicale } from "../../../servers/radicale.ts";
import { PASSWORD, todo, USER } from "./caldav-fixtures.ts";

export async function seedTasks(radicale: Radicale, collection: string, count: number): Promise<void> {
  const folder = join(radicale.storage, "collection-root", USER, collection);
  for (let index = 0; index < count; index += 1) {
    await writeFile(
      join(folder, `task-${index}.ics`),
      todo(`task-${index}`, `Task number ${index}: follow up with the supplier about order ${1000 + index}`, [
        `DUE;VALUE=DATE:202612${String(1 + (index % 28)).padStart(2, "0")}`,
        `PRIORITY:${index % 10}`,
        `CATEGORIES:work,batch-${index % 7}`,
        "DESCRIPTION:Ask for the revised delivery date and the invoice number\\; copy Jo.",
      ]),
    );
  }
  const warm = await fetch(`${radicale.directUrl}/${USER}/${collection}/`, {
    method: "PROPFIND",
    headers: { depth: "1", authorization: `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString("base64")}` },
  });
  await warm.text();
  if (warm.status !== 207) throw new Error(`Radicale did not list the seeded collection: ${warm.status}`);
}
