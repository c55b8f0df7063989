/**
 * `Records` with account-backed tasks and events written through: a change to a task or event that lives
 * on a CalDAV or Todoist account goes to the server first (the tools, Undo and the confirmations all use
 * this one), and the mirror then takes what the server answered; a local one is changed here as before. A
 * conflict on the server throws with what changed there and writes nothing.
 */
import type { CalendarEvent, ChatEventChanges, NewChatEvent, Task } from "../domain.ts";
import { BriefbotError, NotFoundError } from "../errors.ts";
import { addDays } from "../local-time.ts";
import type { Records, Users } from "../ports.ts";
import type { EventTiming, TaskWrite } from "./ports.ts";
import type { AccountService } from "./service.ts";

export function writeThroughRecords(
  records: Records,
  service: AccountService,
  users: Pick<Users, "get">,
): Records {
  const accountTask = async (userId: number, id: number): Promise<Task | undefined> => {
    const task = await records.getTask(userId, id);
    if (!task) throw new NotFoundError(`no task ${id}`);
    return task.accountId ? task : undefined;
  };
  const userOf = async (userId: number) => {
    const user = await users.get(userId);
    if (!user) throw new NotFoundError(`no user ${userId}`);
    return user;
  };
  /** Writes through when the task is an account's; the stored row afterwards, or undefined for a local one. */
  const through = async (userId: number, id: number, write: TaskWrite): Promise<Task | undefined> => {
    const task = await accountTask(userId, id);
    if (!task) return undefined;
    await service.writeTask(userId, task, write);
    const stored = await records.getTask(userId, id);
    if (!stored) throw new NotFoundError(`task ${id} is no longer on its account`);
    return stored;
  };
  return {
    ...records,
    async createTask(values) {
      const home = await service.taskHome(values.userId);
      if (!home) return records.createTask(values);
      if (values.projectId)
        throw new BriefbotError("account_task", "tasks on an account cannot be put in a project here");
      const user = await userOf(values.userId);
      const { taskIds } = await service.createTask(home, {
        title: values.title,
        ...(values.notes !== undefined ? { notes: values.notes } : {}),
        ...(values.dueDate !== undefined ? { dueDate: values.dueDate } : {}),
        ...(values.dueTime !== undefined ? { dueTime: values.dueTime } : {}),
        ...(values.priority !== undefined ? { priority: values.priority } : {}),
        timeZone: user.timeZone,
      });
      const created = taskIds[0];
      if (created === undefined) throw new Error("the server took the task but it derived no task");
      const stored = await records.getTask(values.userId, created);
      if (!stored) throw new NotFoundError(`no task ${created}`);
      return stored;
    },
    async updateTask(userId, id, changes, now) {
      const task = await accountTask(userId, id);
      if (!task) return records.updateTask(userId, id, changes, now);
      if (changes.projectId !== undefined)
        throw new BriefbotError(
          "account_task",
          `task ${id} lives on ${task.sourceName}; it cannot be put in a project here`,
        );
      const { projectId: _project, ...rest } = changes;
      const timeZone = (await userOf(userId)).timeZone;
      return (await through(userId, id, { kind: "update", changes: rest, timeZone })) ?? task;
    },
    async completeTask(userId, id, now) {
      return (
        (await through(userId, id, { kind: "complete", at: now })) ?? records.completeTask(userId, id, now)
      );
    },
    async reopenTask(userId, id, now) {
      return (await through(userId, id, { kind: "reopen" })) ?? records.reopenTask(userId, id, now);
    },
    async deleteTask(userId, id) {
      const task = await accountTask(userId, id);
      if (!task) return records.deleteTask(userId, id);
      await service.deleteTask(userId, task);
      return task;
    },
    ...writeThroughEvents(records, service),
  };
}

/** The event half: a user with an event home gets new events there; an account's event is written there. */
function writeThroughEvents(
  records: Records,
  service: AccountService,
): Pick<Records, "getEvent" | "createEvent" | "updateEvent" | "deleteEvent"> {
  const stored = async (userId: number, id: number): Promise<CalendarEvent> => {
    const event = await records.getEvent(userId, id);
    if (!event) throw new NotFoundError(`event ${id} is no longer on its account`);
    return event;
  };
  return {
    async getEvent(userId, id) {
      const event = await records.getEvent(userId, id);
      if (!event?.accountId) return event;
      return { ...event, recurring: await service.eventIsSeries(userId, id) };
    },
    async createEvent(userId, event) {
      const home = await service.eventHome(userId);
      if (!home) return records.createEvent(userId, event);
      const { eventIds } = await service.createEvent(home, {
        title: event.title,
        ...(event.location !== undefined ? { location: event.location } : {}),
        ...(event.description !== undefined ? { description: event.description } : {}),
        timing: timingOf(event),
        timeZone: event.timeZone,
      });
      const created = eventIds[0];
      if (created === undefined) throw new Error("the server took the event but it derived no event");
      return stored(userId, created);
    },
    async updateEvent(userId, id, changes, timeZone, now) {
      const event = await records.getEvent(userId, id);
      if (!event?.accountId) return records.updateEvent(userId, id, changes, timeZone, now);
      const { allDay: _allDay, status: _status, title, location, description } = changes;
      const written = await service.writeEvent(userId, event, {
        ...(title !== undefined ? { title } : {}),
        ...(location !== undefined ? { location } : {}),
        ...(description !== undefined ? { description } : {}),
        ...(changes.allDay !== undefined ? { timing: timingOf(changes) } : {}),
        timeZone,
      });
      return written ? stored(userId, id) : undefined;
    },
    async deleteEvent(userId, id) {
      const event = await records.getEvent(userId, id);
      if (!event?.accountId) return records.deleteEvent(userId, id);
      return service.deleteEvent(userId, event);
    },
  };
}

/** The timing a chat event's fields say, with the defaults chat events get: an hour, or one day. */
function timingOf(event: NewChatEvent | (ChatEventChanges & { allDay: boolean })): EventTiming {
  if (event.allDay)
    return {
      allDay: true,
      startDate: event.startDate,
      endDate: event.endDate ?? addDays(event.startDate, 1),
    };
  return {
    allDay: false,
    startsAt: event.startsAt,
    endsAt: event.endsAt ?? new Date(event.startsAt.getTime() + 3_600_000),
  };
}
