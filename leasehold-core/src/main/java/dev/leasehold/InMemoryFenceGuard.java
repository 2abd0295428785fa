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

    @Override
    public long highestAdmitted(String resource) {
        return highest.getOrDefault(resource, Long.MIN_VALUE);
    }
}
