package dev.leasehold.bench;

import dev.leasehold.launcher.RedisServer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One complete run: starts the redis-servers through the testkit (loopback, no persistence),
 * runs every workload on them and notes how much CPU other processes took meanwhile, per workload.
 */
final class BenchRun {

    /** Independent servers of the Redlock row. */
    static final int REDLOCK_NODES = 5;

    private BenchRun() {
    }

    static BenchResults execute(BenchSettings settings, Progress progress) {
        double loadBefore = ProcessCpu.loadAverage();
        long start = System.nanoTime();
        List<RedisServer> servers = new ArrayList<>();
        try {
            RedisServer server = start(servers);
            ForeignCpu wholeRun = ForeignCpu.start(servers);
            Map<String, Double> foreign = new LinkedHashMap<>();
            Machine machine = Machine.describe(RedisStats.version(server));
            List<Contender> contenders = Contender.SINGLE_NODE;

            ForeignCpu phase = ForeignCpu.start(servers);
            UncontendedWorkload.Result uncontended =
                    new UncontendedWorkload(List.of(server), settings.uncontended(), progress).run(contenders);
            foreign.put("uncontended", phase.percent());

            phase = ForeignCpu.start(servers);
            UncontendedWorkload.Result family =
                    new UncontendedWorkload(List.of(server), settings.family(), progress).run(Contender.FAMILY);
            foreign.put("read lock and semaphore", phase.percent());

            phase = ForeignCpu.start(servers);
            ContendedWorkload.Result contended =
                    new ContendedWorkload(server, settings.contended(), progress).run(contenders);
            foreign.put("contended", phase.percent());

            phase = ForeignCpu.start(servers);
            ContendedWorkload.Result contendedPerThread = new ContendedWorkload(server, settings.contended(), progress,
                    ContendedWorkload.Clients.CLIENT_PER_THREAD).run(Contender.CLIENT_PER_THREAD);
            foreign.put("contended, client per thread", phase.percent());

            phase = ForeignCpu.start(servers);
            HandoffWorkload.Result handoff = new HandoffWorkload(server, settings.handoff(), progress).run(Contender.HANDOFF);
            foreign.put("handoff", phase.percent());

            phase = ForeignCpu.start(servers);
            WatchdogWorkload.Result watchdog =
                    new WatchdogWorkload(server, settings.watchdog(), progress).run(Contender.WATCHDOG_ROW);
            foreign.put("watchdog", phase.percent());

            while (servers.size() < REDLOCK_NODES) {
                start(servers);
            }
            phase = ForeignCpu.start(servers);
            UncontendedWorkload.Result redlock =
                    new UncontendedWorkload(servers, settings.redlock(), progress).run(Contender.REDLOCK_ROW);
            foreign.put("Redlock", phase.percent());

            BenchResults.Conditions conditions = new BenchResults.Conditions(loadBefore, ProcessCpu.loadAverage(),
                    wholeRun.percent(), foreign, Duration.ofNanos(System.nanoTime() - start));
            return new BenchResults(settings, machine, uncontended, family, contended, contendedPerThread, handoff,
                    watchdog, redlock,
                    REDLOCK_NODES, conditions);
        } finally {
            servers.forEach(RedisServer::close);
        }
    }

    private static RedisServer start(List<RedisServer> servers) {
        RedisServer server = RedisServer.builder().start();
        servers.add(server);
        return server;
    }
}
