package dev.leasehold.bench;

import dev.leasehold.launcher.RedisServer;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * One complete run: starts the redis-servers through the testkit (loopback, no persistence),
 * runs every workload on them and notes how much CPU other processes took meanwhile, per workload.
 */
final class BenchRun {

    /** Independent servers of the Redlock row. */
    static final int REDLOCK_NODES = 5;

    private BenchRun() {
    }

    /** As {@link #execute(BenchSettings, Progress, Consumer)}, reporting only at the end. */
    static BenchResults execute(BenchSettings settings, Progress progress) {
        return execute(settings, progress, partial -> { });
    }

    /**
     * Runs every workload and returns all results. After each workload, {@code afterEach} gets
     * the results so far (later workloads null), so a report written there survives a run that
     * is killed later.
     */
    static BenchResults execute(BenchSettings settings, Progress progress, Consumer<BenchResults> afterEach) {
        double loadBefore = ProcessCpu.loadAverage();
        long start = System.nanoTime();
        List<RedisServer> servers = new ArrayList<>();
        try {
            RedisServer server = start(servers);
            ResultsSoFar run = new ResultsSoFar(settings, Machine.describe(RedisStats.version(server)), servers,
                    loadBefore, start);
            List<Contender> contenders = Contender.SINGLE_NODE;

            ForeignCpu phase = ForeignCpu.start(servers);
            run.uncontended = new UncontendedWorkload(List.of(server), settings.uncontended(), progress).run(contenders);
            run.finished("uncontended", phase);
            afterEach.accept(run.snapshot());

            phase = ForeignCpu.start(servers);
            run.family = new UncontendedWorkload(List.of(server), settings.family(), progress).run(Contender.FAMILY);
            run.finished("read lock and semaphore", phase);
            afterEach.accept(run.snapshot());

            phase = ForeignCpu.start(servers);
            run.contended = new ContendedWorkload(server, settings.contended(), progress).run(contenders);
            run.finished("contended", phase);
            afterEach.accept(run.snapshot());

            phase = ForeignCpu.start(servers);
            run.contendedPerThread = new ContendedWorkload(server, settings.contended(), progress,
                    ContendedWorkload.Clients.CLIENT_PER_THREAD).run(Contender.CLIENT_PER_THREAD);
            run.finished("contended, client per thread", phase);
            afterEach.accept(run.snapshot());

            phase = ForeignCpu.start(servers);
            run.handoff = new HandoffWorkload(server, settings.handoff(), progress).run(Contender.HANDOFF);
            run.finished("handoff", phase);
            afterEach.accept(run.snapshot());

            phase = ForeignCpu.start(servers);
            run.watchdog = new WatchdogWorkload(server, settings.watchdog(), progress).run(Contender.WATCHDOG_ROW);
            run.finished("watchdog", phase);
            afterEach.accept(run.snapshot());

            while (servers.size() < REDLOCK_NODES) {
                start(servers);
            }
            phase = ForeignCpu.start(servers);
            run.redlock = new UncontendedWorkload(servers, settings.redlock(), progress).run(Contender.REDLOCK_ROW);
            run.finished("Redlock", phase);
            BenchResults results = run.snapshot();
            afterEach.accept(results);
            return results;
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
