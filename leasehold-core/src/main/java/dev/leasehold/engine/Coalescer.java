package dev.leasehold.engine;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Sends the requests of one kind that a client's threads make while one of them is on the wire as
 * one call: a group commit (an etcd {@code Txn}, a ZooKeeper {@code multi}). Requests of one lane
 * (say, keys on one session lease) go out at once while none of that lane's is in flight, alone;
 * those that arrive meanwhile wait for it and then leave together, at most {@code maxBatch} per
 * call, so a busy client makes one consensus write for many acquisitions or releases instead of one
 * each, and an idle one waits for nothing.
 *
 * <p>Two requests with the same {@code exclusive} key (the same lock name) never share a call: a
 * later one waits for the next, so that what the store gives each (on etcd a create revision: the
 * fencing token) stays strictly ordered within a name. A lane waits for a call in flight at most
 * {@code stallMillis}: a call that hangs (a frozen server) holds up the requests behind it no longer
 * than that, then they leave without it.
 *
 * @param <Q> a request
 * @param <A> its answer
 */
public final class Coalescer<Q, A> {

    /** Sends a batch of requests as one call. */
    public interface Sender<Q, A> {
        /** One request alone, as it would be sent without coalescing. */
        CompletableFuture<A> one(Q request);

        /**
         * Several requests (two or more) in one call: each one's answer, in the requests' order (a
         * sender may answer some of them by calls of their own when the shared one fails).
         */
        List<CompletableFuture<A>> many(List<Q> requests);

        /** The sender whose calls are {@code one} and {@code many}. */
        static <Q, A> Sender<Q, A> of(Function<Q, CompletableFuture<A>> one,
                                      Function<List<Q>, List<CompletableFuture<A>>> many) {
            return new Sender<>() {
                @Override
                public CompletableFuture<A> one(Q request) {
                    return one.apply(request);
                }

                @Override
                public List<CompletableFuture<A>> many(List<Q> requests) {
                    return many.apply(requests);
                }
            };
        }
    }

    private record Pending<Q, A>(Q request, CompletableFuture<A> answer) {
    }

    /** One lane's requests waiting, and whether a call of it is in flight. Guarded by the coalescer. */
    private static final class Lane<Q, A> {
        final Queue<Pending<Q, A>> waiting = new ArrayDeque<>();
        boolean busy;
    }

    private final Sender<Q, A> sender;
    private final Function<Q, Object> lane;
    private final Function<Q, Object> exclusive;
    private final int maxBatch;
    private final long stallMillis;
    private final Map<Object, Lane<Q, A>> lanes = new HashMap<>();
    /** The lanes this thread's {@link #moveOn} loop still has to move on; null outside it. */
    private final ThreadLocal<ArrayDeque<Object>> movingOn = new ThreadLocal<>();

    /**
     * @param lane        which lane a request belongs to: only requests of one lane share a call
     * @param exclusive   requests with equal keys never share a call
     * @param maxBatch    the most requests in one call
     * @param stallMillis how long a lane waits for a call in flight before it sends the next anyway
     */
    public Coalescer(Sender<Q, A> sender, Function<Q, Object> lane, Function<Q, Object> exclusive, int maxBatch,
              long stallMillis) {
        this.sender = sender;
        this.lane = lane;
        this.exclusive = exclusive;
        this.maxBatch = maxBatch;
        this.stallMillis = stallMillis;
    }

    /** Sends {@code request} now, or with the next call of its lane if one is in flight. */
    public CompletableFuture<A> submit(Q request) {
        Pending<Q, A> pending = new Pending<>(request, new CompletableFuture<>());
        Object key = lane.apply(request);
        synchronized (this) {
            Lane<Q, A> queue = lanes.computeIfAbsent(key, ignored -> new Lane<>());
            if (queue.busy) {
                queue.waiting.add(pending);
                return pending.answer();
            }
            queue.busy = true;
        }
        send(key, List.of(pending));
        return pending.answer();
    }

    private void send(Object key, List<Pending<Q, A>> batch) {
        List<CompletableFuture<A>> answers;
        try {
            answers = batch.size() == 1 ? List.of(sender.one(batch.get(0).request()))
                    : sender.many(batch.stream().map(Pending::request).toList());
        } catch (RuntimeException failed) {
            answers = Collections.nCopies(batch.size(), CompletableFuture.failedFuture(failed));
        }
        for (int i = 0; i < batch.size(); i++) {
            CompletableFuture<A> answer = batch.get(i).answer();
            answers.get(i).whenComplete((result, error) -> {
                if (error != null) {
                    answer.completeExceptionally(Futures.unwrap(error));
                } else {
                    answer.complete(result);
                }
            });
        }
        // The lane moves on when every answer is in, or after the stall bound if the call hangs.
        CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
                .completeOnTimeout(null, stallMillis, TimeUnit.MILLISECONDS)
                .whenComplete((ignored, error) -> moveOn(key));
    }

    /**
     * Sends the lane's next batch. A batch answered at once (a sender that knows it is not
     * connected) moves its lane on from within this call: that key is queued for this thread's
     * loop instead of sent from deeper in the stack, so a long queue drains without overflowing it.
     */
    private void moveOn(Object key) {
        ArrayDeque<Object> queued = movingOn.get();
        if (queued != null) {
            queued.add(key);
            return;
        }
        queued = new ArrayDeque<>();
        movingOn.set(queued);
        try {
            for (Object next = key; next != null; next = queued.poll()) {
                next(next);
            }
        } finally {
            movingOn.remove();
        }
    }

    /** Sends the lane's next batch, or marks it idle. */
    private void next(Object key) {
        List<Pending<Q, A>> batch = new ArrayList<>();
        synchronized (this) {
            Lane<Q, A> queue = lanes.get(key);
            if (queue.waiting.isEmpty()) {
                lanes.remove(key);
                return;
            }
            Set<Object> taken = new HashSet<>();
            for (Iterator<Pending<Q, A>> it = queue.waiting.iterator(); it.hasNext() && batch.size() < maxBatch; ) {
                Pending<Q, A> pending = it.next();
                if (taken.add(exclusive.apply(pending.request()))) {
                    batch.add(pending);
                    it.remove();
                }
            }
        }
        send(key, batch);
    }
}
