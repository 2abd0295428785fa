package dev.leasehold.engine;

import dev.leasehold.Lease;
import dev.leasehold.spi.AcquireRequest;
import dev.leasehold.spi.Admission;
import dev.leasehold.spi.Attempt;
import dev.leasehold.spi.ForwardingLockProtocol;
import dev.leasehold.spi.ReleaseOutcome;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * {@link InMemoryLockProtocol} with what the local-queue tests need on top: an {@link Admission} of
 * the test's choice, a loss signal per grant that the test completes ({@link #loseFromBackend}), a
 * {@link #releaseHolding} that keeps the key for the rest of holdAtLeast, backend grants shorter than
 * the ttl for a chosen attempt ({@link #grantNothingToNextAttempt}), and a watch on every attempt: an attempt sent
 * while a lease the test {@link #watch watches} on the same name is still valid is recorded as a
 * violation of the local queue's rule (for an exclusive kind).
 */
class ObservedProtocol extends ForwardingLockProtocol {

    private final InMemoryLockProtocol server;
    private final Admission admission;
    private final Map<String, CompletableFuture<String>> lossSignals = new ConcurrentHashMap<>();
    private final Map<String, Boolean> grantingNothing = new ConcurrentHashMap<>();
    private volatile boolean grantNothingNext;
    private final List<Lease> watched = new CopyOnWriteArrayList<>();
    private final List<String> violations = new CopyOnWriteArrayList<>();

    ObservedProtocol(InMemoryLockProtocol server, Admission admission) {
        super(server);
        this.server = server;
        this.admission = admission;
    }

    @Override
    public Admission admission() {
        return admission;
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request) {
        for (Lease lease : watched) {
            if (lease.lockName().equals(request.name()) && lease.isValid()) {
                violations.add("an attempt on '" + request.name() + "' was sent while " + lease + " was valid");
            }
        }
        if (grantNothingNext) {
            grantNothingNext = false;
            grantingNothing.put(request.holder(), true);
        }
        CompletableFuture<String> loss = new CompletableFuture<>();
        lossSignals.put(request.holder(), loss);
        return super.tryAcquire(request).thenApply(attempt -> attempt instanceof Attempt.Acquired acquired
                ? new Attempt.Acquired(acquired.token(), loss) : attempt);
    }

    @Override
    public Duration grantedFor(String holder, long sentAtNanos) {
        return grantingNothing.containsKey(holder) ? Duration.ZERO : super.grantedFor(holder, sentAtNanos);
    }

    @Override
    public CompletableFuture<ReleaseOutcome> releaseHolding(String name, String holder, Duration keepFor) {
        synchronized (server) {
            boolean ours = server.holder(name).filter(holder::equals).isPresent();
            if (ours) {
                server.expire(name);
                server.grantTo(name, holder, keepFor);
            }
            return CompletableFuture.completedFuture(ReleaseOutcome.single(ours));
        }
    }

    /** Attempts on this lease's name are violations while it is valid. */
    void watch(Lease lease) {
        watched.add(lease);
    }

    /** The backend reports the lease of {@code holder} lost, as a ZooKeeper session loss would. */
    void loseFromBackend(String holder) {
        lossSignals.get(holder).complete("the session expired");
    }

    /** The next attempt's holder is granted nothing beyond its send: its lease is lost as it is made. */
    void grantNothingToNextAttempt() {
        grantNothingNext = true;
    }

    List<String> violations() {
        return violations;
    }
}
