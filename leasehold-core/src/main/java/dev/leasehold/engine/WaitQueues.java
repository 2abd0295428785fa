package dev.leasehold.engine;

import dev.leasehold.spi.Admission;
import dev.leasehold.spi.LockProtocol;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The local queue of a client's acquisitions per lock kind and name, run by the kind's
 * {@link Admission} rule.
 *
 * <p>{@link Admission#EXCLUSIVE}: only the head of a queue talks to the backend; the others wait
 * their turn in this JVM. The head stays in the queue while its lease is held and leaves when the
 * lease ends (released or lost), which hands the turn to the next operation at once. Why: without
 * it, every thread of a client that wants a contended lock polls and subscribes on its own, a
 * release wakes all of them to race for one key (a thundering herd of round trips), and a thread
 * that releases and re-acquires at once can starve the others. With it, a client sends one attempt
 * per handoff, its threads are served first come first served, and a local handoff does not wait
 * for a pub/sub message. Between clients, the backend decides.
 *
 * <p>{@link Admission#SHARED}: every operation takes its turn at once; the queue only tracks them
 * (for shutdown and for the client's counters).
 *
 * <p>Once granted, an operation hands its place to a {@link #hold small token} that stays in the
 * queue for the lease's life: the lease keeps the place (and the exclusive turn), while the
 * operation, with everything it needed to wait, is collected. A client holding 100,000 leases
 * keeps 100,000 tokens, not 100,000 acquisitions.
 */
final class WaitQueues {

    /** One queue per lock kind (its protocol) and name. */
    record Key(LockProtocol protocol, String name) {
    }

    /**
     * The place of a granted operation, held by its lease until the lease ends. Made before the
     * lease and put in the operation's place after it ({@link #hold}), so a lease that ended in
     * between is seen: {@code ended} is guarded by the map's lock for the queue's key.
     */
    static final class Holding {
        private boolean ended;
    }

    /** Each queue holds {@link AcquireOperation}s and {@link Holding}s; most hold one entry, so it starts with room for one. */
    private final ConcurrentHashMap<Key, ArrayDeque<Object>> queues = new ConcurrentHashMap<>();

    /** Appends {@code operation}; true if it may talk to the backend now. */
    boolean enter(Key key, AcquireOperation operation) {
        boolean shared = key.protocol().admission() == Admission.SHARED;
        boolean[] goes = {false};
        queues.compute(key, (k, queue) -> {
            ArrayDeque<Object> current = queue == null ? new ArrayDeque<>(1) : queue;
            current.addLast(operation);
            goes[0] = shared || current.size() == 1;
            return current;
        });
        return goes[0];
    }

    /**
     * Puts {@code holding} in {@code operation}'s place: its lease passes it to {@link #leave} when
     * it ends. Call it once the lease is registered with the engine, never before: until then the
     * operation itself must stay queued, so that a closing client finds the operation or its lease.
     * If the lease already ended ({@link #leave} got {@code holding} first), the operation just
     * leaves; if the operation already left (its clean-up ran), nothing changes.
     */
    void hold(Key key, AcquireOperation operation, Holding holding) {
        boolean[] endedFirst = {false};
        queues.computeIfPresent(key, (k, queue) -> {
            if (holding.ended) {
                endedFirst[0] = true;
            } else if (queue.peekFirst() == operation) {
                queue.pollFirst();
                queue.addFirst(holding);
            } else if (queue.remove(operation)) {
                // A shared queue's operations all have their turn, so an order among them is no rule.
                queue.addLast(holding);
            }
            return queue;
        });
        if (endedFirst[0]) {
            leave(key, operation);
        }
    }

    /**
     * Removes {@code entry}, an operation or a {@link Holding} (idempotent); if it was an exclusive
     * queue's head, the next operation takes its turn. A holding not in its place yet is marked
     * ended, so {@link #hold} does not put it there.
     */
    void leave(Key key, Object entry) {
        boolean shared = key.protocol().admission() == Admission.SHARED;
        AcquireOperation[] next = {null};
        queues.computeIfPresent(key, (k, queue) -> {
            boolean wasHead = queue.peekFirst() == entry;
            if (!queue.remove(entry)) {
                if (entry instanceof Holding holding) {
                    holding.ended = true;
                }
                return queue;
            }
            // Only the head is ever granted on an exclusive queue, so the next entry waits for its turn.
            if (wasHead && !shared && queue.peekFirst() instanceof AcquireOperation waiting) {
                next[0] = waiting;
            }
            return queue.isEmpty() ? null : queue;
        });
        if (next[0] != null) {
            next[0].takeTurn();
        }
    }

    /** Every queued operation not granted yet, for shutdown (granted ones end with their leases). */
    List<AcquireOperation> all() {
        List<AcquireOperation> all = new ArrayList<>();
        // Each queue copied under the map's lock for its key: an operation ending meanwhile changes
        // its queue, and an unlocked copy could read it half-changed.
        for (Key key : queues.keySet()) {
            queues.computeIfPresent(key, (k, queue) -> {
                queue.forEach(entry -> {
                    if (entry instanceof AcquireOperation operation) {
                        all.add(operation);
                    }
                });
                return queue;
            });
        }
        return all;
    }

    /** Operations queued, waiting or holding on {@code name}, of every kind. */
    int size(String name) {
        return queues.entrySet().stream().filter(entry -> entry.getKey().name().equals(name))
                .mapToInt(entry -> entry.getValue().size()).sum();
    }

    /** Lock names with at least one local operation. */
    int names() {
        return (int) queues.keySet().stream().map(Key::name).distinct().count();
    }
}
