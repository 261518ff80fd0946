// Preloaded into both servers with `node --import .../probe.js`: measures event-loop delay without
// touching the application code, and answers the bench over the IPC channel.
import { monitorEventLoopDelay } from 'node:perf_hooks';

// The histogram records the time between two ticks of a timer that fires every RESOLUTION_MS, so
// an idle loop reads RESOLUTION_MS: the lag (how late the loop ran the timer) is that minus the interval.
const RESOLUTION_MS = 5;
const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
histogram.enable();

interface ProbeMessage {
  probe?: 'reset' | 'read';
  id?: number;
}

if (process.send) {
  process.on('message', (message: ProbeMessage) => {
    if (message?.probe === 'reset') {
      histogram.reset();
      process.send?.({ probe: 'reset', id: message.id });
    } else if (message?.probe === 'read') {
      const lagMs = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
      const memory = process.memoryUsage();
      process.send?.({
        probe: 'read',
        id: message.id,
        lag: {
          p50: lagMs(histogram.percentile(50)),
          p99: lagMs(histogram.percentile(99)),
          max: lagMs(histogram.max),
          mean: lagMs(histogram.mean),
        },
        heapUsedMb: memory.heapUsed / 1048576,
        rssMb: memory.rss / 1048576,
      });
    }
  });
  process.channel?.unref();
}
