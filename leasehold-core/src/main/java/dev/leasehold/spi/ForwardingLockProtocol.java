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
    /** The decorator changes single renewals and not rounds: its rounds go one by one through it. */
    private final boolean roundsOneByOne;

    /** @throws NullPointerException if delegate is null */
    protected ForwardingLockProtocol(LockProtocol delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.roundsOneByOne = overridden("renew", String.class, String.class, Duration.class)
                && !overridden("renew", RenewalRound.class);
    }

    /** Whether the decorator (a subclass) declares the public method {@code name} itself. */
    private boolean overridden(String name, Class<?>... parameters) {
        try {
            return getClass().getMethod(name, parameters).getDeclaringClass() != ForwardingLockProtocol.class;
        } catch (NoSuchMethodException notALockProtocolMethod) {
            throw new IllegalStateException(notALockProtocolMethod);
        }
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
     * Forwarded whole, so the wrapped backend batches the round; but the rounds of a decorator that
     * overrides {@link #renew(String, String, Duration)} and not this go lease by lease through that
     * override ({@link RenewalRound#renewOneByOne}), so the watchdog's renewals never skip it.
     */
    @Override
    public void renew(RenewalRound round) {
        if (roundsOneByOne) {
            RenewalRound.renewOneByOne(round, this);
        } else {
            delegate.renew(round);
        }
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
