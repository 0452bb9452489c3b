import { readFileSync, writeFileSync } from 'node:fs';
import { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;

// Protobuf's own JSON form (enum names, 64-bit numbers as strings, payloads in base64), read
// back through @temporalio/proto. Not @temporalio/common's historyToJSON/historyFromJSON: with
// this install's two copies of protobufjs 8 (under common and under proto) they throw
// "type must be a Type".

export function writeHistory(file: string, history: History): void {
  writeFileSync(file, `${JSON.stringify(temporal.api.history.v1.History.fromObject(history).toJSON())}\n`);
}

export function readHistory(file: string): temporal.api.history.v1.History {
  return temporal.api.history.v1.History.fromObject(JSON.parse(readFileSync(file, 'utf8')));
}
