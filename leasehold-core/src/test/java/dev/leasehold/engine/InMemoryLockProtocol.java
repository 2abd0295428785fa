package dev.leasehold.engine;

import dev.leasehold.LockUnavailableException;
import dev.leasehold.NodeFailure;
import dev.leasehold.spi.AcquireRequest;
import dev.leasehold.spi.Attempt;
import dev.leasehold.spi.LockProtocol;
import dev.leasehold.spi.ReleaseOutcome;
import dev.leasehold.spi.ReleaseSignal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A reference {@link LockProtocol} held in memory: the exclusive lock as the engine expects a
 * backend to implement it (set-if-absent with a ttl, a strictly increasing token, compare-and-
 * extend, compare-and-delete), with switches for the faults the engine must survive: replies held
 * back, replies lost after the server acted, abandons refused as by a reset connection. It lets
 * the engine be tested on its own, without a network or a server.
 */
class InMemoryLockProtocol implements LockProtocol {

    private record Key(String holder, long expiresAtNanos) {
    }

    private final Map<String, Key> keys = new HashMap<>();
    private final Map<String, Long> fences = new HashMap<>();
    private final List<Runnable> heldReplies = new ArrayList<>();
    private boolean holdingReplies;
    private boolean holdingRenewals;
    private boolean failingRenewals;
    /** What the backend itself grants per confirmation (a session), or null: only the ttl. */
    private volatile Duration granted;
    private int acquireRepliesToLose;
    private int abandonsToRefuse;
    private final AtomicInteger acquireCalls = new AtomicInteger();
    private final AtomicInteger abandonCalls = new AtomicInteger();

    @Override
    public String describe() {
        return "in-memory";
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request) {
        acquireCalls.incrementAndGet();
        String name = request.name();
        String holder = request.holder();
        Duration ttl = request.ttl();
        Attempt outcome;
        boolean lose;
        synchronized (this) {
            Key current = live(name);
            if (current == null) {
                keys.put(name, new Key(holder, System.nanoTime() + ttl.toNanos()));
                long token = fences.merge(name, 1L, Long::sum);
                outcome = Attempt.acquired(token);
            } else {
                outcome = Attempt.held(Duration.ofNanos(Math.max(0, current.expiresAtNanos() - System.nanoTime())));
            }
            lose = acquireRepliesToLose > 0;
            if (lose) {
                acquireRepliesToLose--;
            }
        }
        if (lose) {
            return CompletableFuture.failedFuture(unavailable("the connection was reset before the reply arrived"));
        }
        return reply(outcome, holdingReplies);
    }

    @Override
    public CompletableFuture<Boolean> renew(String name, String holder, Duration ttl) {
        boolean extended;
        synchronized (this) {
            if (failingRenewals) {
                return CompletableFuture.failedFuture(unavailable("the renewal got no answer"));
            }
            Key current = live(name);
            extended = current != null && current.holder().equals(holder);
            if (extended) {
                keys.put(name, new Key(holder, System.nanoTime() + ttl.toNanos()));
            }
        }
        return reply(extended, holdingRenewals);
    }

    @Override
    public CompletableFuture<ReleaseOutcome> release(String name, String holder) {
        return reply(ReleaseOutcome.single(delete(name, holder)), holdingReplies);
    }

    @Override
    public CompletableFuture<Void> abandon(String name, String holder) {
        abandonCalls.incrementAndGet();
        synchronized (this) {
            if (abandonsToRefuse > 0) {
                abandonsToRefuse--;
                return CompletableFuture.failedFuture(unavailable("not connected"));
            }
        }
        delete(name, holder);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public ReleaseSignal subscribe(String name, String holder) {
        return ReleaseSignal.none();
    }

    /** Replies (acquire, release) are kept back until {@link #resumeReplies()}; the server still acts at once. */
    synchronized void holdReplies() {
        holdingReplies = true;
    }

    /** Makes the backend grant every lease only {@code granted} from each confirmation, as a session would. */
    void grantOnly(Duration granted) {
        this.granted = granted;
    }

    @Override
    public Duration grantedFor(String holder, long sentAtNanos) {
        return granted;
    }

    /** Renewal replies are kept back until {@link #resumeReplies()}; the renewals themselves take effect. */
    synchronized void holdRenewals() {
        holdingRenewals = true;
    }

    /** Renewals fail with a connection error, without effect, until called again with false. */
    synchronized void failRenewals(boolean failing) {
        failingRenewals = failing;
    }

    /** Delivers every reply kept back, in order, and stops keeping them. */
    void resumeReplies() {
        List<Runnable> due;
        synchronized (this) {
            holdingReplies = false;
            holdingRenewals = false;
            due = List.copyOf(heldReplies);
            heldReplies.clear();
        }
        due.forEach(Runnable::run);
    }

    /** The next {@code count} acquires take effect, but their caller gets a connection error. */
    synchronized void loseAcquireReplies(int count) {
        acquireRepliesToLose = count;
    }

    /** The next {@code count} abandons fail at once without effect, as on a disconnected client. */
    synchronized void refuseAbandons(int count) {
        abandonsToRefuse = count;
    }

    /** Takes the lock for someone outside the engine, as another client would. */
    synchronized void grantTo(String name, String holder, Duration ttl) {
        keys.put(name, new Key(holder, System.nanoTime() + ttl.toNanos()));
        fences.merge(name, 1L, Long::sum);
    }

    /** The holder of the live key, if any. */
    synchronized Optional<String> holder(String name) {
        return Optional.ofNullable(live(name)).map(Key::holder);
    }

    /** Frees the lock whoever holds it, as an expiry would. */
    synchronized void expire(String name) {
        keys.remove(name);
    }

    /** How many replies are kept back now. */
    synchronized int heldReplies() {
        return heldReplies.size();
    }

    int acquireCalls() {
        return acquireCalls.get();
    }

    int abandonCalls() {
        return abandonCalls.get();
    }

    private synchronized boolean delete(String name, String holder) {
        Key current = live(name);
        if (current != null && current.holder().equals(holder)) {
            keys.remove(name);
            return true;
        }
        return false;
    }

    private Key live(String name) {
        Key current = keys.get(name);
        if (current != null && current.expiresAtNanos() - System.nanoTime() <= 0) {
            keys.remove(name);
            return null;
        }
        return current;
    }

    private <T> CompletableFuture<T> reply(T value, boolean hold) {
        CompletableFuture<T> reply = new CompletableFuture<>();
        synchronized (this) {
            if (hold) {
                heldReplies.add(() -> reply.complete(value));
                return reply;
            }
        }
        reply.complete(value);
        return reply;
    }

    private LockUnavailableException unavailable(String why) {
        return new LockUnavailableException("in-memory: " + why,
                new NodeFailure(describe(), NodeFailure.Kind.ERROR, null));
    }
}
