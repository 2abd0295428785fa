package dev.leasehold;

import dev.leasehold.spi.Args;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** {@link MultiLock#of}: the parts sorted by name, taken one after the other within one wait. */
final class SortedMultiLock implements MultiLock {

    private final List<DistributedLock> parts;

    SortedMultiLock(List<DistributedLock> locks) {
        if (locks == null || locks.isEmpty()) {
            throw new IllegalArgumentException("a multi-lock needs at least one lock, got " + locks);
        }
        Set<String> names = new HashSet<>();
        for (DistributedLock lock : locks) {
            if (lock == null) {
                throw new IllegalArgumentException("a multi-lock's locks must not be null: " + locks);
            }
            if (!names.add(lock.name())) {
                throw new IllegalArgumentException("a multi-lock holds two locks named '" + lock.name()
                        + "'; one would wait for the other: keep one lock per name");
            }
        }
        this.parts = locks.stream().sorted(Comparator.comparing(DistributedLock::name)).toList();
    }

    @Override
    public List<String> names() {
        return parts.stream().map(DistributedLock::name).toList();
    }

    @Override
    public MultiLease acquire(Duration wait) {
        Args.within("wait", wait, Duration.ZERO, DistributedLock.MAX_WAIT);
        long deadline = System.nanoTime() + wait.toNanos();
        List<Lease> taken = new ArrayList<>();
        for (DistributedLock part : parts) {
            Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            try {
                taken.add(part.acquire(left));
            } catch (RuntimeException failure) {
                releaseAll(taken, failure);
                throw failure;
            }
        }
        return new CompositeLease(taken);
    }

    @Override
    public Optional<MultiLease> tryAcquire(Duration wait) {
        try {
            return Optional.of(acquire(wait));
        } catch (LockTimeoutException notAcquired) {
            return Optional.empty();
        }
    }

    /** Releases the parts already taken, keeping each release failure with the original one. */
    private static void releaseAll(List<Lease> taken, RuntimeException cause) {
        for (Lease lease : taken) {
            try {
                lease.release();
            } catch (RuntimeException releaseFailed) {
                cause.addSuppressed(releaseFailed);
            }
        }
    }

    @Override
    public String toString() {
        return "MultiLock" + names();
    }
}
