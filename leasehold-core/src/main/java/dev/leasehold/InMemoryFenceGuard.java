package dev.leasehold;

import dev.leasehold.spi.Args;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * A {@link FenceGuard} for one JVM: tests, demos, and resources that live in this process.
 * Each resource's check, write and record run under that resource's map entry, so two writes
 * to the same resource never interleave.
 */
public final class InMemoryFenceGuard implements FenceGuard {

    private final ConcurrentMap<String, Long> highest = new ConcurrentHashMap<>();

    @Override
    public <T> T admit(String resource, long token, FencedWrite<T> write) {
        Args.lockName(resource);
        Args.token(token);
        Object[] result = new Object[1];
        highest.compute(resource, (key, admitted) -> {
            if (admitted != null && token < admitted) {
                throw new StaleTokenException(resource, token, admitted);
            }
            result[0] = write.run();
            return admitted == null ? token : Math.max(admitted, token);
        });
        @SuppressWarnings("unchecked")
        T value = (T) result[0];
        return value;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Here the lease is checked twice: before, and again inside the resource's atomic step, after
     * the token check and right before {@code write} runs, so a loss this client learns of while the
     * call waits for the resource (another write to it running) refuses the write too.
     */
    @Override
    public <T> T admit(String resource, Lease lease, FencedWrite<T> write) {
        return admit(resource, FenceGuard.tokenOf(lease), () -> {
            FenceGuard.tokenOf(lease);
            return write.run();
        });
    }

    @Override
    public long highestAdmitted(String resource) {
        return highest.getOrDefault(resource, Long.MIN_VALUE);
    }
}
