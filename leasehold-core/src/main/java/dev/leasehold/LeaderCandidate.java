package dev.leasehold;

import dev.leasehold.spi.Args;
import dev.leasehold.spi.LeaderRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The one {@link Leadership} implementation, over any client's {@link LockClient#lock(String,
 * LockOptions)}: a daemon thread per run waits for the lock ({@code acquireAsync}, so a resign
 * cancels the wait, which frees whatever it took), holds each term until it ends, refreshes the
 * leader record every third of the ttl, and hands the listener its events on an event thread of
 * its own. No backend call and no listener runs under {@link #state}.
 */
final class LeaderCandidate implements Leadership {

    private static final Logger LOG = LoggerFactory.getLogger(LeaderCandidate.class);
    /** Bound on each leader-record call and on a resign's wait for its run to finish. */
    static final Duration CALL_BOUND = Duration.ofSeconds(5);

    private final String name;
    private final LeadershipOptions options;
    private final DistributedLock lock;
    private final LeaderRecords records;
    private final String describe;
    private final ReentrantLock state = new ReentrantLock();
    private ExecutorService events;
    private Run run;
    private boolean closed;
    private volatile LeaderTerm term;
    private volatile CompletableFuture<LeaderTerm> nextTerm = new CompletableFuture<>();

    LeaderCandidate(LockClient client, String name, LeadershipOptions options) {
        if (options == null) {
            throw new IllegalArgumentException("options must not be null; use LeadershipOptions.defaults()");
        }
        this.name = name;
        this.options = options;
        this.lock = client.lock(name, options.lockOptions());
        this.records = client instanceof LeaderRecords.Source source ? source.leaderRecords() : null;
        this.describe = client.describe();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String leaderId() {
        return options.leaderId();
    }

    @Override
    public void start(LeadershipListener listener) {
        Args.notNull("listener", listener);
        state.lock();
        try {
            if (closed) {
                throw new IllegalStateException("the candidate for '" + name + "' was closed; create a new one");
            }
            if (run != null && !run.stop.isDone()) {
                throw new IllegalStateException("the candidate for '" + name + "' already runs; resign() first");
            }
            if (events == null) {
                // One thread keeps the events in order; it ends when idle, so a candidate whose client
                // was closed under it (and that nobody closes) leaves no thread behind.
                ThreadPoolExecutor single = new ThreadPoolExecutor(1, 1, 1, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                        task -> daemon(task, "leasehold-leader-" + name + "-events"));
                single.allowCoreThreadTimeOut(true);
                events = single;
            }
            run = new Run(listener, events);
            run.thread.start();
        } finally {
            state.unlock();
        }
    }

    @Override
    public boolean isLeader() {
        LeaderTerm current = term;
        return current != null && current.isValid();
    }

    @Override
    public Optional<Lease> awaitLeadership(Duration wait) {
        Args.within("wait", wait, Duration.ZERO, LeaseSource.MAX_WAIT);
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            LeaderTerm current = term;
            if (current != null && current.isValid()) {
                return Optional.of(current);
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return Optional.empty();
            }
            try {
                nextTerm.get(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LockInterruptedException(name, e);
            } catch (TimeoutException | ExecutionException notYet) {
                // Checked again above: a term may have begun and ended meanwhile.
            }
        }
    }

    @Override
    public Optional<LeaderInfo> currentLeader() {
        if (records == null) {
            throw new UnsupportedOperationException("the backend " + describe + " keeps no leader record, so "
                    + "currentLeader() is not offered; isLeader() and the listener still work");
        }
        return await(records.read(name), "reading the leader of '" + name + "'");
    }

    @Override
    public void resign() {
        Run stopping;
        state.lock();
        try {
            stopping = run;
        } finally {
            state.unlock();
        }
        if (stopping == null) {
            return;
        }
        stopping.stop.complete(null);
        if (Thread.currentThread() != stopping.thread) {
            try {
                stopping.thread.join(CALL_BOUND.multipliedBy(2).toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void close() {
        resign();
        state.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            if (events != null) {
                // Only once the last run has handed its last event over: a run that outlived
                // resign()'s bounded wait (a backend that does not answer) still owes onRevoked.
                ExecutorService stopping = events;
                (run == null ? CompletableFuture.<Void>completedFuture(null) : run.finished)
                        .whenComplete((ignored, error) -> stopping.shutdown());
            }
        } finally {
            state.unlock();
        }
    }

    @Override
    public String toString() {
        return "Leadership['" + name + "', " + options.leaderId() + (isLeader() ? ", leading" : "") + "]";
    }

    /** One stay in the election, from start to resign: its thread, its stop signal, its listener. */
    private final class Run {

        final CompletableFuture<Void> stop = new CompletableFuture<>();
        /** Completes when the run's thread ended, every event it owes handed to {@link #events}. */
        final CompletableFuture<Void> finished = new CompletableFuture<>();
        final LeadershipListener listener;
        final ExecutorService events;
        final Thread thread;

        Run(LeadershipListener listener, ExecutorService events) {
            this.listener = listener;
            this.events = events;
            this.thread = daemon(this::campaign, "leasehold-leader-" + name);
        }

        private void campaign() {
            try {
                runForLeader();
            } finally {
                // Also when the client was closed: start() may then be called again (and fail at once).
                stop.complete(null);
                finished.complete(null);
            }
        }

        private void runForLeader() {
            Duration retry = min(Duration.ofSeconds(1), options.lockOptions().ttl().dividedBy(3));
            boolean warned = false;
            while (!stop.isDone()) {
                CompletableFuture<Lease> acquiring;
                try {
                    acquiring = lock.acquireAsync(LeaseSource.MAX_WAIT);
                } catch (LockClientClosedException closedClient) {
                    return;
                }
                Lease lease;
                try {
                    CompletableFuture.anyOf(acquiring, stop).get();
                    if (stop.isDone() && acquiring.cancel(true)) {
                        return;
                    }
                    lease = acquiring.join();
                } catch (InterruptedException | CompletionException | ExecutionException failed) {
                    Throwable cause = failed.getCause() == null ? failed : failed.getCause();
                    if (cause instanceof LockClientClosedException || stop.isDone()) {
                        return;
                    }
                    // One WARN per outage, not one per retry.
                    if (!warned) {
                        LOG.warn("Candidate for '{}' could not wait for the lock; retrying every {} ms: {}", name,
                                retry.toMillis(), cause.toString());
                        warned = true;
                    } else {
                        LOG.debug("Candidate for '{}' still cannot wait for the lock: {}", name, cause.toString());
                    }
                    sleep(retry);
                    continue;
                }
                warned = false;
                if (stop.isDone()) {
                    lease.releaseAsync();
                    return;
                }
                hold(new LeaderTerm(lease));
            }
        }

        /** Holds one term until it ends; then tells the listener. */
        private void hold(LeaderTerm elected) {
            term = elected;
            publish(elected);
            // A term already over when its turn comes (it ended while the listener was still busy, or the
            // candidate resigned or was closed meanwhile) is not announced; its onRevoked still comes, so
            // onElected never starts after resign() or close() returned.
            events.execute(() -> {
                if (elected.isValid()) {
                    deliver(() -> listener.onElected(elected));
                }
            });
            nextTerm.complete(elected);
            Duration refresh = options.lockOptions().renewalPeriod();
            while (!elected.isOver() && !stop.isDone()) {
                try {
                    CompletableFuture.anyOf(elected.ended(), stop).get(refresh.toNanos(), TimeUnit.NANOSECONDS);
                } catch (TimeoutException dueForRefresh) {
                    if (!elected.isOver()) {
                        publish(elected);
                    }
                } catch (InterruptedException | ExecutionException unexpected) {
                    break;
                }
            }
            boolean resigned = stop.isDone() && !elected.ended().isDone() && elected.lease().isValid();
            String reason = resigned ? "the candidate resigned" : reasonOf(elected);
            nextTerm = new CompletableFuture<>();
            term = null;
            elected.end(reason);
            if (resigned) {
                clear(elected);
                try {
                    elected.lease().release();
                } catch (LeaseholdException unreachable) {
                    LOG.warn("Candidate for '{}' resigned, but releasing its term (token {}) failed; the lock is freed "
                            + "by its ttl: {}", name, elected.token(), unreachable.getMessage());
                }
            } else {
                elected.lease().releaseAsync();
            }
            events.execute(() -> deliver(() -> listener.onRevoked(reason)));
        }

        private String reasonOf(LeaderTerm elected) {
            try {
                elected.ensureValid();
            } catch (LeaseLostException lost) {
                return lost.getMessage();
            }
            return "the term ended";
        }

        private void sleep(Duration delay) {
            try {
                stop.get(delay.toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException | ExecutionException | InterruptedException elapsed) {
                // Back to the election.
            }
        }

        private void deliver(Runnable event) {
            try {
                event.run();
            } catch (RuntimeException | Error failure) {
                LOG.warn("A leadership listener of '{}' threw; the election goes on", name, failure);
            }
        }
    }

    private void publish(LeaderTerm elected) {
        if (records == null) {
            return;
        }
        LeaderInfo info = new LeaderInfo(options.leaderId(), elected.token(), options.value());
        try {
            await(records.publish(name, info, options.lockOptions().ttl()), "publishing the leader of '" + name + "'");
        } catch (LeaseholdException failed) {
            LOG.warn("Leader of '{}' (token {}) could not publish its record; retried in a third of the ttl: {}",
                    name, elected.token(), failed.getMessage());
        }
    }

    private void clear(LeaderTerm elected) {
        if (records == null) {
            return;
        }
        try {
            await(records.clear(name, elected.token()), "clearing the leader of '" + name + "'");
        } catch (LeaseholdException failed) {
            LOG.warn("Leader of '{}' (token {}) resigned but could not clear its record; it expires by the ttl: {}",
                    name, elected.token(), failed.getMessage());
        }
    }

    private <T> T await(CompletableFuture<T> call, String what) {
        try {
            return call.get(CALL_BOUND.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockInterruptedException(name, e);
        } catch (TimeoutException e) {
            call.cancel(true);
            throw new LockUnavailableException(what + " got no answer within " + CALL_BOUND,
                    new NodeFailure(describe, NodeFailure.Kind.TIMED_OUT, e));
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof LeaseholdException leasehold) {
                throw leasehold;
            }
            throw new LockUnavailableException(what + " failed: " + cause,
                    new NodeFailure(describe, NodeFailure.Kind.ERROR, cause));
        }
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private static Thread daemon(Runnable task, String threadName) {
        Thread thread = new Thread(task, threadName);
        thread.setDaemon(true);
        return thread;
    }
}
