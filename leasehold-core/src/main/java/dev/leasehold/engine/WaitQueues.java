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
 */
final class WaitQueues {

    /** One queue per lock kind (its protocol) and name. */
    record Key(LockProtocol protocol, String name) {
    }

    private final ConcurrentHashMap<Key, ArrayDeque<AcquireOperation>> queues = new ConcurrentHashMap<>();

    /** Appends {@code operation}; true if it may talk to the backend now. */
    boolean enter(Key key, AcquireOperation operation) {
        boolean shared = key.protocol().admission() == Admission.SHARED;
        boolean[] goes = {false};
        queues.compute(key, (k, queue) -> {
            ArrayDeque<AcquireOperation> current = queue == null ? new ArrayDeque<>() : queue;
            current.addLast(operation);
            goes[0] = shared || current.size() == 1;
            return current;
        });
        return goes[0];
    }

    /** Removes {@code operation} (idempotent); if it was an exclusive queue's head, the next one takes its turn. */
    void leave(Key key, AcquireOperation operation) {
        boolean shared = key.protocol().admission() == Admission.SHARED;
        AcquireOperation[] next = {null};
        queues.computeIfPresent(key, (k, queue) -> {
            boolean wasHead = queue.peekFirst() == operation;
            if (!queue.remove(operation)) {
                return queue;
            }
            if (wasHead && !shared) {
                next[0] = queue.peekFirst();
            }
            return queue.isEmpty() ? null : queue;
        });
        if (next[0] != null) {
            next[0].takeTurn();
        }
    }

    /** The operation at the head of {@code key}'s queue (the one holding, or talking to the backend), if any. */
    AcquireOperation head(Key key) {
        AcquireOperation[] head = {null};
        // Read under the map's lock for this key, which every change of the queue holds.
        queues.computeIfPresent(key, (k, queue) -> {
            head[0] = queue.peekFirst();
            return queue;
        });
        return head[0];
    }

    /** Every queued operation, for shutdown. */
    List<AcquireOperation> all() {
        List<AcquireOperation> all = new ArrayList<>();
        // Each queue copied under the map's lock for its key: an operation ending meanwhile changes
        // its queue, and an unlocked copy could read it half-changed.
        for (Key key : queues.keySet()) {
            queues.computeIfPresent(key, (k, queue) -> {
                all.addAll(queue);
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
