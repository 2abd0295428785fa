package dev.leasehold.bench;

import dev.leasehold.launcher.RedisServer;

import java.util.List;

/**
 * How much CPU processes other than this JVM and its redis-servers used over an interval, in %
 * of the whole machine. On 2 shared cores another build running during one workload distorts
 * that workload's figures, so the report gives this per workload.
 */
final class ForeignCpu {

    private final List<RedisServer> servers;
    private final int cpus;
    private final long startNanos = System.nanoTime();
    private final double machineStart = ProcessCpu.machineBusySeconds();
    private final double jvmStart = ProcessCpu.seconds();
    private final double serversStart;

    private ForeignCpu(List<RedisServer> servers) {
        this.servers = servers;
        this.cpus = Runtime.getRuntime().availableProcessors();
        this.serversStart = serversCpu();
    }

    /**
     * Starts measuring. {@code servers} is the live list of this run's redis-servers: one added
     * later started inside the interval, so all its CPU counts as ours.
     */
    static ForeignCpu start(List<RedisServer> servers) {
        return new ForeignCpu(servers);
    }

    /** Others' CPU since the start, in % of the machine (never negative; NaN without /proc). */
    double percent() {
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        double others = ProcessCpu.machineBusySeconds() - machineStart - (ProcessCpu.seconds() - jvmStart)
                - (serversCpu() - serversStart);
        return Math.max(0, 100 * others / (seconds * cpus));
    }

    private double serversCpu() {
        return servers.stream().mapToDouble(RedisStats::serverCpuSeconds).sum();
    }
}
