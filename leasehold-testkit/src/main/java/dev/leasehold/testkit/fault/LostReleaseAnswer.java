package dev.leasehold.testkit.fault;

import dev.leasehold.Lease;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.ReleaseStatus;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import static dev.leasehold.testkit.junit.Eventually.eventually;

/**
 * A release the server carries out whose answer is lost: the client's only links to the servers go
 * through {@link FaultProxy}s, which hold the replies until the servers' deletion is visible and
 * then reset the connections. What the holder is told, first and when it retries as
 * {@link Lease#release()}'s Javadoc invites after a {@link LockUnavailableException}.
 */
public final class LostReleaseAnswer {

    /**
     * The first release's status ({@code null} if it failed with a {@link LockUnavailableException})
     * and, if it failed, the status of the release tried again ({@code null} if none was needed).
     */
    public record Outcome(ReleaseStatus first, ReleaseStatus retried) {

        /** What the holder was told last. */
        public ReleaseStatus last() {
            return first != null ? first : retried;
        }
    }

    private LostReleaseAnswer() {
    }

    /**
     * Releases {@code lease} with the replies of every proxy held, waits until {@code deleted}, resets
     * the proxies' connections and lets new ones pass; then waits up to 10 s for the release, and if
     * it failed, calls {@code release()} again until the client has reconnected (within 10 s).
     *
     * @throws AssertionError if the release failed with anything but a {@link LockUnavailableException},
     *                        or something did not happen in time
     */
    public static Outcome release(Lease lease, List<FaultProxy> proxies, BooleanSupplier deleted) {
        proxies.forEach(FaultProxy::holdReplies);
        CompletableFuture<ReleaseStatus> release = lease.releaseAsync();
        eventually(deleted, "the servers deleted the lease");
        proxies.forEach(FaultProxy::cutAll);
        proxies.forEach(FaultProxy::pass);
        try {
            return new Outcome(release.get(10, TimeUnit.SECONDS), null);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof LockUnavailableException)) {
                throw new AssertionError("the release whose answer was lost failed with " + e.getCause(), e);
            }
        } catch (TimeoutException e) {
            throw new AssertionError("the release whose answer was lost did not end within 10 s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted waiting for the release", e);
        }
        AtomicReference<ReleaseStatus> retried = new AtomicReference<>();
        eventually(() -> {
            try {
                return retried.compareAndSet(null, lease.release());
            } catch (LockUnavailableException notYetReconnected) {
                return false;
            }
        }, "a retried release answered");
        return new Outcome(null, retried.get());
    }
}
