/**
 * What a shell module is: a name and a factory of its per-server instance (routes, and what runs beside
 * them). A leaf file: each module's folder (shell/prices and the like) imports these types from here, and
 * modules.ts imports the modules, so the list and the modules never import each other.
 */
import type { ShellContext } from './context.ts';
import type { Route, RouteTable } from './http/route-table.ts';
import type { DurableBatch } from '../engine/runtime/sequencer.ts';
import type { TopicStream } from './ws/topic-stream.ts';

/** One server's instance of a module. */
export interface ModuleInstance {
  readonly routes: readonly Route[];
  /**
   * Descriptions of the OpenAPI tags its routes use that the shared list (shell/discovery/openapi.ts) does
   * not describe, by tag: a new module describes its own area here.
   */
  readonly tags?: Readonly<Record<string, string>>;
  /** Sees every durable batch, after the read models and before any submitter is answered. */
  readonly onDurable?: (batch: DurableBatch) => void;
  /** WebSocket streams the module serves: server.ts mounts them before listening and closes them first. */
  readonly streams?: readonly TopicStream<any>[];
  /**
   * Starts what runs beside the routes, once the engine has recovered and the routes are mounted. `table`
   * is the server's final route table (every module's routes and the discovery documents), for a module
   * that describes the service itself (the support agents index the OpenAPI document made from it).
   */
  readonly start?: (table: RouteTable) => Promise<void> | void;
  /** Stops whatever makes commands (feeds, schedules); called before the engine closes. */
  readonly stop?: () => Promise<void> | void;
  /**
   * Releases what it holds (databases, workers); called after the engine's last durable batch, so a
   * module whose `onDurable` writes to a store still has it open for the batches written while closing.
   */
  readonly close?: () => Promise<void> | void;
}

export interface ShellModule {
  readonly name: string;
  create(context: ShellContext): ModuleInstance;
}
