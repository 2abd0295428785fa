package dev.leasehold.testkit.contract;

import dev.leasehold.DistributedLock;
import dev.leasehold.InMemoryFenceGuard;
import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.testkit.fault.LateGrant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * {@link LateGrant}'s two cases for a backend whose fence is checked in memory: a test class says
 * how its faults have a grant answered after its ttl while a rival holds, and which client probes
 * the lock afterwards.
 */
public abstract class LateGrantContract {

    private final List<AutoCloseable> opened = new ArrayList<>();

    /** Closes {@code closeable} after the test, the last opened first. */
    protected final <T extends AutoCloseable> T open(T closeable) {
        opened.add(0, closeable);
        return closeable;
    }

    /** Runs after a subclass's own {@code @AfterEach} (which heals its faults first). */
    @AfterEach
    void closeOpened() throws Exception {
        for (AutoCloseable closeable : opened) {
            closeable.close();
        }
    }

    /** See {@link LateGrant.Arrangement#grantedAfterItsTtlWhileARivalHolds}. */
    protected abstract Lease grantedAfterItsTtlWhileARivalHolds(String name, Consumer<DistributedLock> acquiring)
            throws Exception;

    /** A client that reaches the servers without the faults, to see who holds the lock. */
    protected abstract LockClient probe();

    @Test
    void aGrantAnsweredAfterItsTtlWhileARivalHoldsIsNeverValid() throws Exception {
        LateGrant.isNeverValidWhileTheRivalHolds(this::grantedAfterItsTtlWhileARivalHolds, "late-grant-" + System.nanoTime(),
                probe(), stale -> new InMemoryFenceGuard().admit("r", stale, () -> "written"));
    }

    @Test
    void workGivenAGrantAnsweredAfterItsTtlNeverRuns() throws Exception {
        LateGrant.workNeverRuns(this::grantedAfterItsTtlWhileARivalHolds, "late-" + System.nanoTime());
    }
}
