// Preloaded into both servers with `node --import .../probe.js`: measures event-loop delay without
// touching the application code, and answers the bench over the IPC channel.
import { monitorEventLoopDelay } from 'node:perf_hooks';

const histogram = monitorEventLoopDelay({ resolution: 5 });
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
      const ms = (ns: number) => ns / 1e6;
      const memory = process.memoryUsage();
      process.send?.({
        probe: 'read',
        id: message.id,
        lag: {
          p50: ms(histogram.percentile(50)),
          p99: ms(histogram.percentile(99)),
          max: ms(histogram.max),
          mean: ms(histogram.mean),
        },
        heapUsedMb: memory.heapUsed / 1048576,
        rssMb: memory.rss / 1048576,
      });
    }
  });
  process.channel?.unref();
}
