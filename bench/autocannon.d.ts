/** The part of autocannon 8's API the load child uses (the package ships no types). */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  export interface AutocannonRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    setupRequest?: (request: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest | undefined;
  }

  export interface AutocannonOptions {
    /** Several URLs: the connections are spread over them in turn. */
    url: string | string[];
    connections?: number;
    duration?: number;
    amount?: number;
    overallRate?: number;
    ignoreCoordinatedOmission?: boolean;
    timeout?: number;
    requests?: AutocannonRequest[];
  }

  export interface AutocannonResult {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    statusCodeStats: Record<string, { count: number }>;
  }

  export interface Instance extends EventEmitter {
    on(event: 'response', listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void): this;
    on(event: 'done', listener: (result: AutocannonResult) => void): this;
    on(event: string, listener: (...args: unknown[]) => void): this;
    stop(): void;
  }

  function autocannon(options: AutocannonOptions, callback: (error: Error | null, result: AutocannonResult) => void): Instance;
  export default autocannon;
}
