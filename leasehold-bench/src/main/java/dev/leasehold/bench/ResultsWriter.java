package dev.leasehold.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Writes a run's results as the Markdown report, {@code RESULTS.md}, with its charts beside it ({@link ResultsCharts}). */
final class ResultsWriter {

    /** A ratio or figure that a failed cell makes impossible. */
    static final String NOT_AVAILABLE = "n/a";

    private ResultsWriter() {
    }

    /**
     * Writes the charts of {@code results} to {@code charts/} beside {@code file} (see
     * {@link ReportCharts}), then replaces {@code file} with the report, which shows them, in one
     * atomic rename, so a run killed while writing leaves the previous report whole rather than a
     * truncated one.
     */
    static void write(BenchResults results, Path file) throws IOException {
        Path target = file.toAbsolutePath();
        Files.createDirectories(target.getParent());
        Map<String, String> images = ReportCharts.write(target, ResultsCharts.of(results));
        Path temporary = target.resolveSibling(target.getFileName() + ".tmp");
        Files.writeString(temporary, render(results, images));
        Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** The report without charts. */
    static String render(BenchResults results) {
        return render(results, Map.of());
    }

    /** The report, showing the charts of {@code images} (chart name to Markdown, from {@link ReportCharts#write}). */
    static String render(BenchResults results, Map<String, String> images) {
        StringBuilder md = new StringBuilder();
        header(results, md);
        targets(results, md);
        // A workload that has not finished yet (a partial report) has no section.
        if (results.uncontended() != null) {
            uncontended(results, md);
            md.append(ReportCharts.images(images, List.of(ResultsCharts.UNCONTENDED)));
        }
        if (results.family() != null) {
            family(results, md);
            md.append(ReportCharts.images(images, List.of(ResultsCharts.FAMILY)));
        }
        if (results.contended() != null) {
            contended(results, results.contended(), md);
        }
        if (results.contendedPerThread() != null) {
            contended(results, results.contendedPerThread(), md);
        }
        if (results.handoff() != null) {
            handoff(results, md);
            md.append(ReportCharts.images(images, Arrays.stream(HandoffWorkload.Pairing.values())
                    .map(ResultsCharts::handoff).toList()));
        }
        if (results.watchdog() != null) {
            watchdog(results, md);
        }
        if (results.redlock() != null) {
            redlock(results, md);
        }
        method(results, md);
        return md.toString();
    }

    private static void header(BenchResults results, StringBuilder md) {
        Machine machine = results.machine();
        BenchResults.Conditions conditions = results.conditions();
        md.append("# Leasehold benchmarks\n\n");
        if (!results.complete()) {
            md.append("**Partial report**: written after each workload; the run had not finished (or was killed) "
                    + "when this was written, so the workloads still to run have no section and their targets are "
                    + "missing.\n\n");
        }
        if (!results.failures().isEmpty()) {
            md.append("**Failed cells**: ").append(results.failures().stream()
                            .map(failure -> failure.contender().label() + " " + failure.report())
                            .collect(Collectors.joining("; ")))
                    .append(". A failed cell has no figures; the ratios and targets involving it are n/a.\n\n");
        }
        md.append("Produced by `leasehold-bench/run.sh` (").append(results.settings().name())
                .append(" settings), which builds the module and runs `java -jar leasehold-bench/target/benchmarks.jar`.\n\n");
        md.append(conditions.idle()
                ? "**The machine was otherwise idle** during this run"
                : "**The machine was NOT idle** during this run: treat the absolute figures as noisy and re-run on a quiet machine")
                .append(" (other processes used ").append(Fmt.one(conditions.otherCpuPercent()))
                .append(" % of its CPU; 1-minute load average ").append(Fmt.two(conditions.loadBefore()))
                .append(" before, ").append(Fmt.two(conditions.loadAfter())).append(" after, the run itself adding about 2). ")
                .append("Other processes' CPU by workload, in % of the machine: ")
                .append(conditions.otherByWorkload().entrySet().stream()
                        .map(e -> e.getKey() + " " + Fmt.one(e.getValue()) + " %").collect(Collectors.joining(", ")))
                .append(".\n\n");
        md.append("| | |\n| --- | --- |\n");
        row(md, "date", machine.date());
        row(md, "processors (nproc)", String.valueOf(machine.cpus()));
        row(md, "CPU", machine.cpuModel());
        row(md, "RAM", machine.memory());
        row(md, "JDK", machine.jdk());
        row(md, "OS", machine.os());
        row(md, "redis-server", machine.redisVersion() + ", started by the testkit on 127.0.0.1, no persistence; "
                + "Redis, the client JVM and the load share the processors");
        row(md, "libraries", machine.libraries().entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", ")) + " (Netty loaded at run time: " + machine.nettyRuntime() + ")");
        row(md, "Leasehold revision", machine.revision());
        row(md, "run time", conditions.duration().toMinutes() + " min " + conditions.duration().toSecondsPart() + " s");
        md.append("\nEvery figure is the median of the rounds with the lowest and highest round in brackets, "
                + "`median [min–max]`. Ratios are taken round by round (same round, same server) and summarised the "
                + "same way. Latencies are in milliseconds; a latency percentile is taken over all rounds pooled, "
                + "with the lowest and highest round's own percentile in brackets.\n\n");
    }

    private static void targets(BenchResults results, StringBuilder md) {
        md.append("## Targets of issue 5\n\n| target | measured | met |\n| --- | --- | --- |\n");
        for (Targets.Check check : Targets.evaluate(results)) {
            md.append("| ").append(check.target()).append(" | ").append(check.measured()).append(" | ")
                    .append(check.verdict()).append(" |\n");
        }
        md.append('\n');
        md.append("## Targets of the lock family\n\nOne client per thread: the mutex against Redisson's `RLock` and the "
                + "fair lock against `RFairLock`; the read lock and the semaphore, uncontended, against Redisson's.\n\n"
                + "| target | measured | met |\n| --- | --- | --- |\n");
        for (Targets.Check check : Targets.family(results)) {
            md.append("| ").append(check.target()).append(" | ").append(check.measured()).append(" | ")
                    .append(check.verdict()).append(" |\n");
        }
        md.append('\n');
    }

    private static void uncontended(BenchResults results, StringBuilder md) {
        UncontendedWorkload.Settings settings = results.settings().uncontended();
        UncontendedWorkload.Result result = results.uncontended();
        md.append("## 1. Uncontended acquire + release (JMH)\n\n")
                .append("Each thread locks a name of its own. JMH throughput mode, ").append(settings.rounds())
                .append(" rounds of ").append(settings.warmupIterations()).append(" warm-up + ")
                .append(settings.measurementIterations()).append(" measured iterations of ")
                .append(settings.iteration().toMillis()).append(" ms per contender and thread count. Client CPU per op "
                        + "is this JVM's CPU time (all threads, GC and JIT included) in the measured iterations divided "
                        + "by the operations in them; Redis runs in its own process and is not included.\n\n");
        throughputTable(result, List.of(Contender.RAW_FLOOR, Contender.REDISSON, Contender.REDISSON_FENCED), md);
        md.append("\n| contender | commands per acquire + release | keys left after all releases |\n| --- | --- | --- |\n");
        for (Contender contender : result.cells().keySet()) {
            CommandProbe.Counted probe = result.probes().get(contender);
            md.append("| ").append(contender.label()).append(" | ").append(Fmt.one(probe.perOperation()))
                    .append(" (").append(breakdown(probe)).append(") | ").append(keysLeft(result, contender)).append(" |\n");
        }
        md.append('\n');
    }

    private static void family(BenchResults results, StringBuilder md) {
        UncontendedWorkload.Settings settings = results.settings().family();
        UncontendedWorkload.Result result = results.family();
        md.append("## 2. Read lock and semaphore: uncontended acquire + release (JMH)\n\n")
                .append("As section 1, each thread on a name of its own: Leasehold's `readWriteLock(name).readLock()` "
                        + "against Redisson's `RReadWriteLock.readLock()` (`lock()`, watchdog), and one permit of "
                        + "Leasehold's `semaphore(name, ").append(LeaseholdAdapter.SEMAPHORE_PERMITS)
                .append(")` against Redisson's `RPermitExpirableSemaphore` with as many permits (`acquire(30 s lease)` "
                        + "returning a permit id, `release(permitId)`). ").append(settings.rounds()).append(" rounds of ")
                .append(settings.warmupIterations()).append(" warm-up + ").append(settings.measurementIterations())
                .append(" measured iterations of ").append(settings.iteration().toMillis())
                .append(" ms per contender and thread count, interleaved as in section 1.\n\n")
                .append("| contender | threads | ops/s | × Redisson peer | p50 | p99 | client CPU per op, µs |\n")
                .append("| --- | --- | --- | --- | --- | --- | --- |\n");
        result.cells().forEach((contender, byThreads) -> byThreads.forEach((threads, cell) -> {
            UncontendedWorkload.Cell peer = result.cells().get(contender.peer()).get(threads);
            md.append("| ").append(contender.label()).append(" | ").append(threads).append(" | ")
                    .append(Fmt.spread(cell.throughput(), Fmt::count)).append(" | ")
                    .append(contender.peer() == contender ? "1"
                            : Fmt.spread(Spread.ratios(cell.opsPerSecond(), peer.opsPerSecond()), Fmt::ratio))
                    .append(latencyAndCpu(cell));
        }));
        md.append("\n| contender | commands sent per acquire + release | commands the server ran per acquire + release "
                        + "(scripts' included) | keys left after all releases |\n| --- | --- | --- | --- |\n");
        for (Contender contender : result.cells().keySet()) {
            CommandProbe.Counted probe = result.probes().get(contender);
            md.append("| ").append(contender.label()).append(" | ").append(perOperation(probe))
                    .append(" | ").append(serverPerOperation(probe))
                    .append(" | ").append(keysLeft(result, contender)).append(" |\n");
        }
        md.append('\n');
    }

    /** Throughput, latency and client CPU per contender and thread count, with each row's ratios to {@code references}. */
    private static void throughputTable(UncontendedWorkload.Result result, List<Contender> references, StringBuilder md) {
        md.append("| contender | threads | ops/s | × raw floor | × Redisson RLock | × RFencedLock | p50 | p99 "
                        + "| client CPU per op, µs |\n")
                .append("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        result.cells().forEach((contender, byThreads) -> byThreads.forEach((threads, cell) -> {
            md.append("| ").append(contender.label()).append(" | ").append(threads).append(" | ")
                    .append(Fmt.spread(cell.throughput(), Fmt::count));
            for (Contender reference : references) {
                UncontendedWorkload.Cell other = result.cells().get(reference).get(threads);
                md.append(" | ").append(reference == contender ? "1" : Fmt.spread(
                        Spread.ratios(cell.opsPerSecond(), other.opsPerSecond()), Fmt::ratio));
            }
            md.append(latencyAndCpu(cell));
        }));
    }

    private static void contended(BenchResults results, ContendedWorkload.Result result, StringBuilder md) {
        ContendedWorkload.Settings settings = results.settings().contended();
        boolean perThread = result.clients() == ContendedWorkload.Clients.CLIENT_PER_THREAD;
        md.append(perThread ? "## 4. Contended: " + settings.threads() + " threads on one name, one client per thread\n\n"
                        : "## 3. Contended: " + settings.threads() + " threads of one client on one name\n\n")
                .append(perThread ? "As section 3, but each thread has a client of its own (its own connections, as "
                        + "separate processes would), so no local queue can pass the lock between threads: every "
                        + "handoff goes through Redis. The mutexes and the fair locks, each against Redisson's lock of "
                        + "the same kind. "
                        : "Custom harness (per-thread counts and waits over a fixed window do not fit JMH's per-call "
                        + "score). The critical section only increments the protected counter. ")
                .append(settings.rounds()).append(" windows of ").append(settings.window().toMillis())
                .append(" ms per contender after a discarded ").append(settings.warmup().toMillis())
                .append(" ms one. Fairness is the fewest acquisitions any thread got divided by the mean.")
                .append(perThread ? " Commands the server ran include those inside scripts (`INFO commandstats` over "
                        + "the probe).\n\n" : "\n\n")
                .append("| contender | acquisitions/s | ").append(perThread ? "× Redisson peer" : "× Redisson RLock")
                .append(" | × raw floor | p50 wait | p99 wait "
                        + "| fairness min/mean | per-thread acquisitions (last round) | commands per acquisition |")
                .append(perThread ? " commands the server ran per acquisition |\n" : "\n")
                .append("| --- | --- | --- | --- | --- | --- | --- | --- | --- |").append(perThread ? " --- |\n" : "\n");
        ContendedWorkload.Cell floor = result.cells().get(Contender.RAW_FLOOR);
        result.cells().forEach((contender, cell) -> {
            long[] last = cell.perThread().get(cell.perThread().size() - 1);
            ContendedWorkload.Cell peer = result.cells().get(contender.peer());
            md.append("| ").append(contender.label())
                    .append(" | ").append(Fmt.spread(Spread.of(cell.acquisitionsPerSecond()), Fmt::count))
                    .append(" | ").append(peer == null ? NOT_AVAILABLE : Fmt.spread(Spread.ratios(
                            cell.acquisitionsPerSecond(), peer.acquisitionsPerSecond()), Fmt::ratio))
                    .append(" | ").append(floor == null ? "—" : Fmt.spread(Spread.ratios(cell.acquisitionsPerSecond(),
                            floor.acquisitionsPerSecond()), Fmt::ratio))
                    .append(" | ").append(latency(cell.waitNanos().getValueAtPercentile(50), cell.p50PerRound()))
                    .append(" | ").append(latency(cell.waitNanos().getValueAtPercentile(99), cell.p99PerRound()))
                    .append(" | ").append(Fmt.spread(Spread.of(cell.fairness()), Fmt::two))
                    .append(" | ").append(Arrays.stream(last).mapToObj(String::valueOf)
                            .collect(Collectors.joining(" ")))
                    .append(" | ").append(perOperation(result.probes().get(contender)))
                    .append(perThread ? " | " + serverPerOperation(result.probes().get(contender)) : "")
                    .append(" |\n");
        });
        // A failed cell has no figure and takes its ratios with it: every other column is not available.
        result.failures().forEach((contender, failure) -> md.append("| ").append(contender.label())
                .append(" | ").append(failure.report())
                .append((" | " + NOT_AVAILABLE).repeat(perThread ? 8 : 7)).append(" |\n"));
        md.append('\n');
    }

    private static void handoff(BenchResults results, StringBuilder md) {
        HandoffWorkload.Settings settings = results.settings().handoff();
        HandoffWorkload.Result result = results.handoff();
        md.append("## 5. Handoff latency\n\n")
                .append("Custom harness (the interval spans two threads). From the holder's call to release to the "
                        + "blocked waiter's acquire returning; the waiter has been blocked for ")
                .append(settings.hold().toMillis()).append(" ms. ").append(settings.rounds()).append(" rounds of ")
                .append(settings.handoffsPerRound()).append(" handoffs per contender and pairing (")
                .append(settings.rounds() * settings.handoffsPerRound()).append(" in all) after ")
                .append(settings.warmupHandoffs()).append(" discarded. Commands per handoff: one full acquire "
                        + "(with its waiting) and one release, counted with MONITOR over ")
                .append(settings.probeHandoffs()).append(" handoffs. The fair locks are compared with Redisson's "
                        + "`RFairLock`, the mutexes with `RLock` (the Redisson peer).\n\n")
                .append("| pairing | contender | p50 | p99 | p50 × Redisson peer | p50 × raw floor "
                        + "| commands per handoff | waiter not yet blocked |\n")
                .append("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
        result.cells().forEach((pairing, cells) -> {
            cells.forEach((contender, cell) -> md.append("| ")
                    .append(pairing.label).append(" | ").append(contender.label())
                    .append(" | ").append(latency(cell.latencyNanos().getValueAtPercentile(50), cell.p50PerRound()))
                    .append(" | ").append(latency(cell.latencyNanos().getValueAtPercentile(99), cell.p99PerRound()))
                    .append(" | ").append(p50Ratio(cell, cells.get(contender.peer())))
                    .append(" | ").append(p50Ratio(cell, cells.get(Contender.RAW_FLOOR)))
                    .append(" | ").append(perOperation(result.probes().get(pairing).get(contender)))
                    .append(" | ").append(cell.notBlocked()).append(" of ").append(cell.latencyNanos().getTotalCount()
                            + cell.notBlocked()).append(" |\n"));
            result.failures().get(pairing).forEach((contender, failure) -> md.append("| ").append(pairing.label)
                    .append(" | ").append(contender.label()).append(" | ").append(failure.report())
                    .append((" | " + NOT_AVAILABLE).repeat(5)).append(" |\n"));
        });
        md.append('\n');
    }

    /** {@code cell}'s p50 over {@code other}'s round by round, or n/a when {@code other}'s cell failed. */
    private static String p50Ratio(HandoffWorkload.Cell cell, HandoffWorkload.Cell other) {
        return other == null ? NOT_AVAILABLE : Fmt.spread(Spread.ratios(cell.p50PerRound(), other.p50PerRound()), Fmt::ratio);
    }

    private static void watchdog(BenchResults results, StringBuilder md) {
        WatchdogWorkload.Settings settings = results.settings().watchdog();
        WatchdogWorkload.Result result = results.watchdog();
        md.append("## 6. Watchdog cost\n\n").append(Fmt.count(settings.leases()))
                .append(" leases held at once by one client with a ").append(settings.ttl().toMillis())
                .append(" ms ttl (renewal every ttl/3) for ").append(Fmt.one(settings.window().toMillis() / 1000.0))
                .append(" s after a discarded ").append(Fmt.one(settings.warmup().toMillis() / 1000.0))
                .append(" s, nothing else running; sampled every ").append(settings.sample().toMillis())
                .append(" ms. Script calls are EVALSHA + EVAL; all commands include those the scripts run. "
                        + "Client CPU is the whole JVM (I/O threads, timers, JIT, GC); the same JVM idle used ")
                .append(Fmt.one(result.idleClientCpuPercent())).append(" % of one core. Leases per script call above "
                        + "1 means renewals are batched; script calls per server socket read above 1, that they are "
                        + "pipelined. RFencedLock renews like RLock and is not repeated; the raw floor has no watchdog.\n\n")
                .append("| contender | script calls/s | all commands/s | client CPU, % of one core | server CPU, % of one core "
                        + "| leases per script call | script calls per server socket read | leases alive at the end "
                        + "| client CPU by thread group |\n")
                .append("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        result.cells().forEach((contender, cell) -> md.append("| ").append(contender.label())
                .append(" | ").append(Fmt.spread(Spread.of(cell.scriptCallsPerSecond()), Fmt::count))
                .append(" | ").append(Fmt.spread(Spread.of(cell.allCallsPerSecond()), Fmt::count))
                .append(" | ").append(Fmt.spread(Spread.of(cell.clientCpuPercent()), Fmt::one))
                .append(" | ").append(Fmt.one(cell.serverCpuPercent()))
                .append(" | ").append(Fmt.one(cell.leasesPerScriptCall(settings)))
                .append(" | ").append(Fmt.one(cell.callsPerRead()))
                .append(" | ").append(Fmt.count(cell.leasesAliveAtEnd())).append(" of ").append(Fmt.count(settings.leases()))
                .append(" | ").append(cell.cpuByThreadGroup().entrySet().stream().limit(4)
                        .map(e -> e.getKey() + " " + Fmt.one(e.getValue()) + " %").collect(Collectors.joining(", ")))
                .append(" |\n"));
        md.append("\nSpread here is over the samples of the one window, not over rounds. CPU by thread group is over "
                + "the whole window (ThreadMXBean; the JVM's own GC and JIT work is the process total minus all Java "
                + "threads), the four largest groups.\n\n");
    }

    private static void redlock(BenchResults results, StringBuilder md) {
        UncontendedWorkload.Result result = results.redlock();
        md.append("## 7. Redlock over ").append(results.redlockNodes()).append(" nodes (JMH)\n\n")
                .append("Uncontended acquire + release, 1 thread, ").append(results.redlockNodes())
                .append(" independent redis-servers; the single-node locks run on the first of them in the same "
                        + "rounds. Commands are counted on the first node only.\n\n")
                .append("| contender | ops/s | p50 | p99 | p50 × its single-node lock | commands per acquire + release "
                        + "(first node) |\n| --- | --- | --- | --- | --- | --- |\n");
        Map<Contender, Contender> singleNode = Map.of(Contender.LEASEHOLD_REDLOCK, Contender.LEASEHOLD,
                Contender.REDISSON_REDLOCK, Contender.REDISSON);
        result.cells().forEach((contender, byThreads) -> byThreads.forEach((threads, cell) -> {
            Contender single = singleNode.get(contender);
            md.append("| ").append(contender.label()).append(" | ").append(Fmt.spread(cell.throughput(), Fmt::count))
                    .append(" | ").append(latency(cell.latencyNanos().getValueAtPercentile(50), cell.p50PerRound()))
                    .append(" | ").append(latency(cell.latencyNanos().getValueAtPercentile(99), cell.p99PerRound()))
                    .append(" | ").append(single == null ? "—" : Fmt.spread(Spread.ratios(cell.p50PerRound(),
                            result.cells().get(single).get(threads).p50PerRound()), Fmt::ratio))
                    .append(" | ").append(perOperation(result.probes().get(contender))).append(" |\n");
        }));
        md.append('\n');
    }

    private static void method(BenchResults results, StringBuilder md) {
        md.append("## How it was measured\n\n")
                .append("- All contenders run in one JVM against the same redis-server(s), started by the testkit on "
                        + "loopback. Each is warmed up first (a discarded run), then the rounds interleave the "
                        + "contenders and rotate their order each round.\n")
                .append("- Contenders: Leasehold (watchdog mode, 30 s ttl: mutex, fair lock, read lock, semaphore); "
                        + "Redisson 4.0.0 `RLock`, `RFencedLock`, `RFairLock` and `RReadWriteLock.readLock()` "
                        + "(`lock()`, watchdog, 30 s) and `RPermitExpirableSemaphore` (permits leased for 30 s) with "
                        + "default client settings; the raw floor, Lettuce "
                        + "`SET NX PX 30000` and an `EVALSHA` compare-and-delete on one shared connection, retrying "
                        + "`SET` back to back while the lock is held.\n")
                .append("- JMH runs in the runner's JVM (`forks(0)`), so every contender shares one warmed-up JVM and "
                        + "the per-thread latency histograms can be handed back; throughput is JMH's score.\n")
                .append("- Correctness is checked inside every benchmark: a plain counter incremented in the critical "
                        + "section must equal the acquisitions, and fencing tokens (every Leasehold kind, RFencedLock) must grow "
                        + "strictly from one holder to the next; a violation fails the run.\n")
                .append("- Commands are counted with a short `MONITOR` probe, apart from the timed runs: lines marked "
                        + "`[0 lua]` (commands a script ran) are skipped, so the count is the commands clients sent. "
                        + "`INFO commandstats` counts script-internal commands too; it is used for the watchdog's "
                        + "rates, where script calls (EVALSHA/EVAL) and all commands are shown apart.\n")
                .append("- Keys left: every key on the server after each run's last release, grouped by shape "
                        + "(`NAME` is the lock name, `ID` a random id), with its longest remaining TTL.\n");
    }

    /** Latency of all rounds together, with the spread of the per-round values. */
    /** An uncontended cell's last columns: p50, p99 and client CPU per operation, ending the row. */
    private static String latencyAndCpu(UncontendedWorkload.Cell cell) {
        return " | " + latency(cell.latencyNanos().getValueAtPercentile(50), cell.p50PerRound())
                + " | " + latency(cell.latencyNanos().getValueAtPercentile(99), cell.p99PerRound())
                + " | " + Fmt.spread(Spread.of(cell.clientCpuMicrosPerOp()), Fmt::one) + " |\n";
    }

    /** The keys {@code contender} left after all its releases, and how many releases that was. */
    private static String keysLeft(UncontendedWorkload.Result result, Contender contender) {
        return describeKeys(result.keysLeft(contender)) + " after " + Fmt.count(result.releases(contender)) + " releases";
    }

    private static String latency(double allRounds, List<Double> perRound) {
        Spread spread = Spread.of(perRound);
        return Fmt.ms(allRounds) + " [" + Fmt.ms(spread.min()) + "–" + Fmt.ms(spread.max()) + "]";
    }

    private static String perOperation(CommandProbe.Counted probe) {
        return Fmt.one(probe.perOperation()) + " (" + breakdown(probe) + ")";
    }

    /** Commands the server ran per operation (scripts' included), with the largest five by name. */
    private static String serverPerOperation(CommandProbe.Counted probe) {
        return Fmt.one(probe.serverPerOperation()) + " (" + probe.server().entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(5)
                .map(e -> e.getKey() + " " + Fmt.two((double) e.getValue() / probe.operations()))
                .collect(Collectors.joining(", ")) + ")";
    }

    /** Commands per operation by name, e.g. {@code evalsha 2.0, subscribe 1.0}. */
    static String breakdown(CommandProbe.Counted probe) {
        return probe.commands().entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .map(e -> e.getKey() + " " + Fmt.two((double) e.getValue() / probe.operations()))
                .collect(Collectors.joining(", "));
    }

    /** Keys by shape, with counts and TTLs, or "none". */
    static String describeKeys(KeyCensus keys) {
        if (keys.keys() == 0) {
            return "none";
        }
        return keys.shapes().entrySet().stream().map(e -> {
            KeyCensus.Shape shape = e.getValue();
            String ttl = shape.maxTtlMillis() < 0 ? "" : ", TTL ≤ " + Fmt.one(shape.maxTtlMillis() / 1000.0) + " s";
            String forever = shape.withoutTtl() == 0 ? "" : ", **" + Fmt.count(shape.withoutTtl()) + " without TTL**";
            return Fmt.count(shape.keys()) + " × `" + e.getKey() + "`" + ttl + forever;
        }).collect(Collectors.joining("; "));
    }

    private static void row(StringBuilder md, String name, String value) {
        md.append("| ").append(name).append(" | ").append(value).append(" |\n");
    }
}
