/**
 * The few pieces of PostgreSQL's frontend/backend protocol (v3) the embedded database's socket server
 * needs: splitting the client's byte stream into messages, the start-up handshake we answer ourselves,
 * and finding the transaction status in the backend's ReadyForQuery.
 * https://www.postgresql.org/docs/current/protocol-message-formats.html
 */
import { BriefbotError } from "../../src/core/errors.ts";

export const PROTOCOL_V3 = 196_608;
export const SSL_REQUEST = 80_877_103;
export const GSSENC_REQUEST = 80_877_104;
export const CANCEL_REQUEST = 80_877_102;

/** A start-up phase packet (no type byte): the start-up message itself, or an SSL/GSS/cancel request. */
export interface StartupPacket {
  code: number;
  payload: Buffer;
}

/** A typed message after start-up: `Q`, `P`, `B`, `E`, `S`, `X`, … with its whole bytes (type included). */
export interface FrontendMessage {
  type: string;
  bytes: Buffer;
}

/** Takes one start-up packet off the front of `buffer`, or returns undefined until it is complete. */
export function takeStartupPacket(buffer: Buffer): { packet: StartupPacket; rest: Buffer } | undefined {
  if (buffer.length < 8) return undefined;
  const length = buffer.readInt32BE(0);
  if (length < 8 || length > 10_000) throw new ProtocolError(`invalid start-up packet length ${length}`);
  if (buffer.length < length) return undefined;
  return {
    packet: { code: buffer.readInt32BE(4), payload: buffer.subarray(8, length) },
    rest: buffer.subarray(length),
  };
}

/** Takes one typed message off the front of `buffer`, or returns undefined until it is complete. */
export function takeMessage(buffer: Buffer): { message: FrontendMessage; rest: Buffer } | undefined {
  if (buffer.length < 5) return undefined;
  const length = buffer.readInt32BE(1);
  if (length < 4) throw new ProtocolError(`invalid message length ${length}`);
  if (buffer.length < 1 + length) return undefined;
  return {
    message: { type: String.fromCharCode(buffer[0] ?? 0), bytes: buffer.subarray(0, 1 + length) },
    rest: buffer.subarray(1 + length),
  };
}

/** A Parse message names its statement first; an empty name is the unnamed statement. */
export function parsedStatementName(message: FrontendMessage): string {
  const end = message.bytes.indexOf(0, 5);
  return end < 0 ? "" : message.bytes.subarray(5, end).toString("utf8");
}

/**
 * The transaction status of the last ReadyForQuery in a backend reply: "I" idle, "T" in a transaction,
 * "E" in a failed transaction; undefined when the reply has none (mid extended-protocol exchange).
 */
export function lastReadyStatus(reply: Uint8Array): "I" | "T" | "E" | undefined {
  let status: "I" | "T" | "E" | undefined;
  let offset = 0;
  const view = Buffer.from(reply.buffer, reply.byteOffset, reply.byteLength);
  while (offset + 5 <= view.length) {
    const type = view[offset];
    const length = view.readInt32BE(offset + 1);
    if (length < 4) break;
    if (type === 0x5a /* Z */ && length === 5 && offset + 5 < view.length) {
      const code = String.fromCharCode(view[offset + 5] ?? 0);
      if (code === "I" || code === "T" || code === "E") status = code;
    }
    offset += 1 + length;
  }
  return status;
}

function message(type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, "latin1");
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

const cstring = (text: string) => Buffer.from(`${text}\0`, "utf8");

export function authenticationOk(): Buffer {
  const body = Buffer.alloc(4);
  body.writeInt32BE(0, 0);
  return message("R", body);
}

export function parameterStatus(name: string, value: string): Buffer {
  return message("S", Buffer.concat([cstring(name), cstring(value)]));
}

export function backendKeyData(processId: number, secret: number): Buffer {
  const body = Buffer.alloc(8);
  body.writeInt32BE(processId, 0);
  body.writeInt32BE(secret, 4);
  return message("K", body);
}

export function readyForQuery(status: "I" | "T" | "E"): Buffer {
  return message("Z", Buffer.from(status, "latin1"));
}

export function errorResponse(severity: "ERROR" | "FATAL", code: string, text: string): Buffer {
  return message(
    "E",
    Buffer.concat([
      Buffer.from("S"),
      cstring(severity),
      Buffer.from("V"),
      cstring(severity),
      Buffer.from("C"),
      cstring(code),
      Buffer.from("M"),
      cstring(text),
      Buffer.from([0]),
    ]),
  );
}

/** A Sync, to end whatever extended-protocol exchange a vanished client left half done. */
export function syncMessage(): Buffer {
  return message("S", Buffer.alloc(0));
}

/** A simple-protocol Query. */
export function queryMessage(sql: string): Buffer {
  return message("Q", cstring(sql));
}

export class ProtocolError extends BriefbotError {
  constructor(message: string) {
    super("wire_protocol", message);
  }
}
