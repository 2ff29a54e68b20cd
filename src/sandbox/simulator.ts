/** A simulated upstream listening on loopback, speaking one provider protocol. */
export interface Simulator {
  baseUrl: string;
  close(): Promise<void>;
}
