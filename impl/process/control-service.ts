/**
 * A node process's side of process control (control.ts): it answers admins' status requests
 * and applies the fault settings of `cluster net | isolate | heal` to its transport.
 */
import type { FrameVerdict } from '../io/transport.js';
import type { TcpTransport } from '../net/tcp-transport.js';
import type { Server } from '../node/api.js';
import { decodeControlRequest, encodeControl, type FaultSettings } from './control.js';

export function applyFaults(transport: TcpTransport, faults: FaultSettings): void {
  if (faults.unreliable !== transport.faults.isUnreliable || faults.unreliable) {
    transport.faults.setUnreliable(faults.unreliable, faults.seed);
  }
  transport.faults.isolated = faults.isolated;
}

/**
 * Answers status and fault settings from admins (the transport refuses clients). A frame
 * that is no control request is one line and a closed connection, as on the data channel.
 */
export function serveControl(
  transport: TcpTransport, server: Pick<Server, 'status'>, log: (line: string) => void,
): void {
  transport.onControl((from, frame): FrameVerdict => {
    const request = decodeControlRequest(frame);
    if (request === null) {
      log(`${transport.name}: closed the connection with ${from}: a malformed control frame ` +
        `of ${frame.length} bytes`);
      return 'malformed';
    }
    if (request.kind === 'faults') {
      applyFaults(transport, request.faults);
      log(`${transport.name}: faults set by ${from}: ${JSON.stringify(request.faults)}`);
    }
    const reply = { id: request.id, pid: process.pid, status: server.status() };
    transport.sendControl(from, encodeControl(reply));
  });
}
