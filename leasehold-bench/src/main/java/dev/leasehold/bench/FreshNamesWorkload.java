package dev.leasehold.bench;

import dev.leasehold.launcher.RedisServer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Lock names used once each, as fast as one client goes: several threads lock and release fresh
 * names ({@link LockNames}) until a target count or a time limit. What it shows is what stays
 * behind per name: on the server, the keys over time (sampled from {@code DBSIZE} and
 * {@code INFO keyspace}) and the memory they take, then how long they take to leave once the load
 * stops; in the client, the heap after a collection at the start, the middle and the end of the load
 * and after the keys left, and the client's own per-name counters ({@link LockAdapter#clientState()}).
 * A library that keeps something per name grows with the names; one that keeps state only while a
 * name is in use stays flat.
 *
 * <p>Each acquisition is checked: it is released by the thread that took it, and the counts of
 * acquisitions and releases must match at the end.
 */
final class FreshNamesWorkload {

    /**
     * @param names     stop after this many names
     * @param limit     or after this long, whichever comes first
     * @param threads   threads of the one client, each locking and releasing its own fresh names
     * @param warmup    discarded lock+release time before the measurement (JIT, connections)
     * @param sample    how often the server's keys are read
     */
    record Settings(long names, Duration limit, int threads, Duration warmup, Duration sample) {
    }

    /**
     * One contender.
     *
     * @param label row label
     * @param open  opens a fresh client
     * @param drain how long to wait, after the load, for the keys it left to expire (zero: not waited for)
     */
    record Peer(String label, Supplier<LockAdapter> open, Duration drain) {
    }

    /** The server's keys at one moment of the run, {@code seconds} after the load started. */
    record Sample(double seconds, long names, long keys, long keysWithTtl, long usedMemory) {
    }

    /** The client at one moment: heap used after a collection and its own per-name counters. */
    record Checkpoint(String when, long names, long heapBytes, Map<String, Long> clientState) {
    }

    /**
     * One contender's run.
     *
     * @param names          names locked and released (acquisitions = releases = names)
     * @param seconds        how long the load ran
     * @param samples        the server's keys over the load and the drain
     * @param checkpoints    the client at the start, middle and end of the load, and after the drain
     * @param keysAtEnd      the shapes of a sample of the keys left when the load stopped
     *                       ({@link KeyCensus#sample}, at most {@link #CENSUS_SAMPLE} keys)
     * @param memoryAtEnd    the server's {@code used_memory} when the load stopped, minus before it
     * @param drainSeconds   from the end of the load until no key was left, or -1 if keys were still
     *                       there when the drain ended (or it was not waited for)
     */
    record Cell(String peer, long names, double seconds, List<Sample> samples, List<Checkpoint> checkpoints,
                KeyCensus keysAtEnd, long memoryAtEnd, double drainSeconds) {

        double namesPerMinute() {
            return names * 60 / seconds;
        }

        /** The last sample of the load (before the drain). */
        Sample endOfLoad() {
            return samples.stream().filter(s -> s.seconds() <= seconds + 1e-9).reduce((a, b) -> b).orElseThrow();
        }

        /** The heap after the load (or after the drain, if there was one) minus at the start, per name. */
        double heapGrowthPerName() {
            long start = checkpoints.get(0).heapBytes();
            long last = checkpoints.get(checkpoints.size() - 1).heapBytes();
            return (last - start) / (double) names;
        }
    }

    /** Keys whose shapes are read when the load stopped. */
    static final int CENSUS_SAMPLE = 1_000;

    private final RedisServer server;
    private final Settings settings;
    private final Progress progress;

    FreshNamesWorkload(RedisServer server, Settings settings, Progress progress) {
        this.server = server;
        this.settings = settings;
        this.progress = progress;
    }

    /** Each peer in turn, on an emptied server. */
    List<Cell> run(List<Peer> peers) {
        List<Cell> cells = new ArrayList<>();
        for (Peer peer : peers) {
            progress.step("fresh names: " + peer.label() + ", up to " + Fmt.count(settings.names()) + " names in "
                    + settings.limit().toSeconds() + " s, " + settings.threads() + " threads");
            cells.add(measure(peer));
        }
        return cells;
    }

    private Cell measure(Peer peer) {
        RedisStats.flush(server);
        try (LockAdapter adapter = peer.open().get()) {
            new Load(adapter, settings.warmup(), Long.MAX_VALUE, new AtomicLong()).join();
            // The warm-up's keys are not the measured names'.
            RedisStats.flush(server);
            RedisStats.reset(server);
            long memoryBefore = RedisStats.usedMemory(server);
            List<Checkpoint> checkpoints = new ArrayList<>();
            checkpoints.add(checkpoint("start", 0, adapter));
            List<Sample> samples = new ArrayList<>();
            AtomicLong done = new AtomicLong();
            long start = System.nanoTime();
            boolean middleTaken = false;
            Load load = new Load(adapter, settings.limit(), settings.names(), done);
            while (!load.finished()) {
                LockSupport.parkNanos(settings.sample().toNanos());
                double seconds = (System.nanoTime() - start) / 1e9;
                samples.add(sample(seconds, done.get()));
                boolean halfway = seconds >= settings.limit().toNanos() / 2e9 || done.get() >= settings.names() / 2;
                if (halfway && !middleTaken) {
                    middleTaken = true;
                    checkpoints.add(checkpoint("middle", done.get(), adapter));
                }
            }
            load.join();
            double seconds = (System.nanoTime() - start) / 1e9;
            samples.add(sample(seconds, done.get()));
            long memoryAtEnd = RedisStats.usedMemory(server) - memoryBefore;
            KeyCensus census = KeyCensus.sample(server, CENSUS_SAMPLE);
            checkpoints.add(checkpoint("end", done.get(), adapter));
            double drained = drain(peer.drain(), seconds, done.get(), samples);
            if (!peer.drain().isZero()) {
                checkpoints.add(checkpoint("after the drain", done.get(), adapter));
            }
            return new Cell(peer.label(), done.get(), seconds, samples, checkpoints, census, memoryAtEnd, drained);
        } finally {
            RedisStats.flush(server);
        }
    }

    /** Samples until no key is left or {@code limit} passed; the seconds it took, or -1. */
    private double drain(Duration limit, double loadSeconds, long names, List<Sample> samples) {
        if (limit.isZero()) {
            return -1;
        }
        long start = System.nanoTime();
        long end = start + limit.toNanos();
        while (true) {
            long now = System.nanoTime();
            Sample sample = sample(loadSeconds + (now - start) / 1e9, names);
            samples.add(sample);
            if (sample.keys() == 0) {
                return (now - start) / 1e9;
            }
            if (now - end >= 0) {
                return -1;
            }
            LockSupport.parkNanos(Math.min(settings.sample().toNanos(), end - now));
        }
    }

    private Sample sample(double seconds, long names) {
        RedisStats.Keyspace keyspace = RedisStats.keyspace(server);
        return new Sample(seconds, names, keyspace.keys(), keyspace.expires(), RedisStats.usedMemory(server));
    }

    private static Checkpoint checkpoint(String when, long names, LockAdapter adapter) {
        return new Checkpoint(when, names, HeapProbe.usedAfterGc(3), adapter.clientState());
    }

    /** The load's threads: each locks and releases fresh names until the count or the time is reached. */
    private final class Load {

        private final List<Thread> threads = new ArrayList<>();
        private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
        private final AtomicLong started = new AtomicLong();
        private final AtomicLong acquired = new AtomicLong();
        private final AtomicLong released;

        /**
         * Starts the threads.
         *
         * @param released counts the names locked and released so far
         */
        Load(LockAdapter adapter, Duration limit, long names, AtomicLong released) {
            this.released = released;
            long end = System.nanoTime() + limit.toNanos();
            for (int t = 0; t < settings.threads(); t++) {
                Thread thread = new Thread(() -> {
                    try {
                        while (System.nanoTime() - end < 0 && started.incrementAndGet() <= names) {
                            LockAdapter.Held held = adapter.lock(LockNames.next()).acquire();
                            acquired.incrementAndGet();
                            held.release();
                            released.incrementAndGet();
                        }
                    } catch (RuntimeException e) {
                        failure.compareAndSet(null, e);
                    }
                }, "fresh-names-" + t);
                thread.start();
                threads.add(thread);
            }
        }

        boolean finished() {
            return threads.stream().noneMatch(Thread::isAlive);
        }

        /**
         * Waits for every thread.
         *
         * @throws RuntimeException what a lock or release threw
         * @throws IllegalStateException if acquisitions and releases differ
         */
        void join() {
            for (Thread thread : threads) {
                try {
                    thread.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while the load ran", e);
                }
            }
            if (failure.get() != null) {
                throw failure.get();
            }
            if (acquired.get() != released.get()) {
                throw new IllegalStateException("acquisitions " + acquired.get() + " but releases " + released.get());
            }
        }
    }
}
