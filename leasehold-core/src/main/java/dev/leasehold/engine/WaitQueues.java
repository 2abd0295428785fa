package dev.leasehold.engine;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The local queue of a client's acquisitions per lock name. Only the head of a queue talks to
 * the backend; the others wait their turn in this JVM. The head stays in the queue while its
 * lease is held and leaves when the lease ends (released or lost), which hands the turn to the
 * next operation at once.
 *
 * <p>Why: without it, every thread of a client that wants a contended lock polls and subscribes
 * on its own, a release wakes all of them to race for one key (a thundering herd of round trips),
 * and a thread that releases and re-acquires at once can starve the others. With it, a client
 * sends one attempt per handoff, its threads are served first come first served, and a local
 * handoff does not wait for a pub/sub message. Between clients, the backend decides.
 */
final class WaitQueues {

    private final ConcurrentHashMap<String, ArrayDeque<AcquireOperation>> queues = new ConcurrentHashMap<>();

    /** Appends {@code operation}; true if it is now the head and may talk to the backend. */
    boolean enter(String name, AcquireOperation operation) {
        boolean[] head = {false};
        queues.compute(name, (key, queue) -> {
            ArrayDeque<AcquireOperation> current = queue == null ? new ArrayDeque<>() : queue;
            current.addLast(operation);
            head[0] = current.size() == 1;
            return current;
        });
        return head[0];
    }

    /** Removes {@code operation} (idempotent); if it was the head, the next one takes its turn. */
    void leave(String name, AcquireOperation operation) {
        AcquireOperation[] next = {null};
        queues.computeIfPresent(name, (key, queue) -> {
            boolean wasHead = queue.peekFirst() == operation;
            if (!queue.remove(operation)) {
                return queue;
            }
            if (wasHead) {
                next[0] = queue.peekFirst();
            }
            return queue.isEmpty() ? null : queue;
        });
        if (next[0] != null) {
            next[0].takeTurn();
        }
    }

    /** Every queued operation, for shutdown. */
    List<AcquireOperation> all() {
        return queues.values().stream().flatMap(queue -> List.copyOf(queue).stream()).toList();
    }

    /** Operations queued, waiting or holding on {@code name}. */
    int size(String name) {
        ArrayDeque<AcquireOperation> queue = queues.get(name);
        return queue == null ? 0 : queue.size();
    }

    /** Lock names with at least one local operation. */
    int names() {
        return queues.size();
    }
}
