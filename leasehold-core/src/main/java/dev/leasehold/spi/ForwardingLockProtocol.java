package dev.leasehold.spi;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link LockProtocol} that forwards every call, the interface's default methods included, to
 * another one: the base of a decorator, which overrides only what it changes. Forwarding the
 * defaults too keeps a decorator from answering with an interface default where the protocol it
 * wraps has an answer of its own (its {@link #grantedFor}, its {@link #releaseHolding}, ...); a
 * decorator that means to hide one overrides it and says why.
 */
public abstract class ForwardingLockProtocol implements LockProtocol {

    private final LockProtocol delegate;

    /** @throws NullPointerException if delegate is null */
    protected ForwardingLockProtocol(LockProtocol delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The protocol every call goes to unless overridden. */
    protected final LockProtocol delegate() {
        return delegate;
    }

    @Override
    public String describe() {
        return delegate.describe();
    }

    @Override
    public String kind() {
        return delegate.kind();
    }

    @Override
    public int nodes() {
        return delegate.nodes();
    }

    @Override
    public Admission admission() {
        return delegate.admission();
    }

    @Override
    public boolean coversWaiters() {
        return delegate.coversWaiters();
    }

    @Override
    public boolean boundsCallsWithin(Duration timeout) {
        return delegate.boundsCallsWithin(timeout);
    }

    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request) {
        return delegate.tryAcquire(request);
    }

    @Override
    public CompletableFuture<Boolean> renew(String name, String holder, Duration ttl) {
        return delegate.renew(name, holder, ttl);
    }

    /**
     * Forwarded whole, so the wrapped backend batches the round. A decorator that overrides
     * {@link #renew(String, String, Duration)} must override this too, with
     * {@link RenewalRound#renewOneByOne}, or the watchdog's renewals skip it.
     */
    @Override
    public void renew(RenewalRound round) {
        delegate.renew(round);
    }

    @Override
    public Duration grantedFor(String holder, long sentAtNanos) {
        return delegate.grantedFor(holder, sentAtNanos);
    }

    @Override
    public void flushRenewals() {
        delegate.flushRenewals();
    }

    @Override
    public CompletableFuture<ReleaseOutcome> release(String name, String holder) {
        return delegate.release(name, holder);
    }

    @Override
    public CompletableFuture<ReleaseOutcome> releaseHolding(String name, String holder, Duration keepFor) {
        return delegate.releaseHolding(name, holder, keepFor);
    }

    @Override
    public CompletableFuture<Void> abandon(String name, String holder) {
        return delegate.abandon(name, holder);
    }

    @Override
    public void leaseLost(String name, String holder) {
        delegate.leaseLost(name, holder);
    }

    @Override
    public ReleaseSignal subscribe(String name, String holder) {
        return delegate.subscribe(name, holder);
    }

    @Override
    public ReleaseSignal subscribeIfActive(String name, String holder) {
        return delegate.subscribeIfActive(name, holder);
    }
}
