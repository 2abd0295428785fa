package dev.leasehold;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ForkJoinPool;

/**
 * One term of a {@link LeaderCandidate}: the lease on the election's lock, whose {@link #lost()}
 * also completes when the term ends without a loss (the candidate resigned or was closed, or the
 * leader released the term), since leadership can no longer be trusted then either. Releasing the
 * term ends it; the candidate stays in the election.
 */
final class LeaderTerm implements Lease {

    private final Lease lease;
    private final CompletableFuture<LeaseLostException> ended = new CompletableFuture<>();

    LeaderTerm(Lease lease) {
        this.lease = lease;
        lease.lost().thenAccept(ended::complete);
    }

    /**
     * Ends the term for {@code reason} unless it already ended: from this call on it is not valid,
     * before its lease is released. The holder's {@link #lost()} callbacks run on the common pool.
     */
    void end(String reason) {
        ended.complete(new LeaseLostException(lease.lockName(), lease.token(), reason));
    }

    /** Completes when the term ended, at once for the candidate (never through the common pool). */
    CompletableFuture<LeaseLostException> ended() {
        return ended;
    }

    /** Whether the term ended, or its lease is no longer valid. */
    boolean isOver() {
        return ended.isDone() || !lease.isValid();
    }

    /** The lease itself, for the candidate's release. */
    Lease lease() {
        return lease;
    }

    @Override
    public String lockName() {
        return lease.lockName();
    }

    @Override
    public long token() {
        return lease.token();
    }

    @Override
    public boolean isValid() {
        return !ended.isDone() && lease.isValid();
    }

    @Override
    public Duration remaining() {
        return isValid() ? lease.remaining() : Duration.ZERO;
    }

    @Override
    public void ensureValid() {
        LeaseLostException over = ended.getNow(null);
        if (over != null) {
            throw over;
        }
        lease.ensureValid();
    }

    @Override
    public void extend(Duration ttl) {
        ensureValid();
        lease.extend(ttl);
    }

    @Override
    public CompletableFuture<Void> extendAsync(Duration ttl) {
        ensureValid();
        return lease.extendAsync(ttl);
    }

    @Override
    public CompletionStage<LeaseLostException> lost() {
        return ended.thenApplyAsync(over -> over, ForkJoinPool.commonPool());
    }

    @Override
    public ReleaseStatus release() {
        ended.complete(new LeaseLostException(lease.lockName(), lease.token(), "the leader released its term"));
        return lease.release();
    }

    @Override
    public CompletableFuture<ReleaseStatus> releaseAsync() {
        ended.complete(new LeaseLostException(lease.lockName(), lease.token(), "the leader released its term"));
        return lease.releaseAsync();
    }

    @Override
    public Optional<ReleaseReport> releaseReport() {
        return lease.releaseReport();
    }

    @Override
    public void close() {
        release();
    }

    @Override
    public String toString() {
        return "LeaderTerm[" + lease.lockName() + ", token " + lease.token() + (isValid() ? "" : ", over") + "]";
    }
}
