package dev.leasehold.testkit.history;

import dev.leasehold.FenceGuard;
import dev.leasehold.InMemoryFenceGuard;
import dev.leasehold.StaleTokenException;

/**
 * The shared resource of a fault run: a counter that holders read under the lock and write back
 * plus one, optionally behind a {@link FenceGuard}. Every write is recorded in the history from
 * inside the resource's atomic section.
 *
 * <p>When guarded, reads pass the guard too: for a read-modify-write, fencing only the write is
 * not enough, since a late holder's write could land between the new holder's read and write.
 */
public final class CounterResource {

    private final History history;
    private final FenceGuard guard;
    private long value;

    /** @param guarded whether writes pass an {@link InMemoryFenceGuard} */
    public CounterResource(History history, boolean guarded) {
        this.history = history;
        this.guard = guarded ? new InMemoryFenceGuard() : null;
    }

    /**
     * Reads the value for the holder of {@code token}.
     *
     * @throws StaleTokenException if guarded and a higher token was already admitted
     */
    public long read(long token) {
        if (guard == null) {
            synchronized (this) {
                return value;
            }
        }
        return guard.admit("counter", token, () -> {
            synchronized (this) {
                return value;
            }
        });
    }

    /** Writes {@code readValue + 1}; false if the guard refused the token. */
    public boolean increment(String holder, long token, long readValue) {
        if (guard == null) {
            synchronized (this) {
                value = readValue + 1;
                history.write(new Write(holder, token, true, readValue, value));
                return true;
            }
        }
        try {
            guard.admit("counter", token, () -> {
                synchronized (this) {
                    value = readValue + 1;
                    history.write(new Write(holder, token, true, readValue, value));
                    return null;
                }
            });
            return true;
        } catch (StaleTokenException refused) {
            history.write(new Write(holder, token, false, readValue, readValue));
            return false;
        }
    }

    public synchronized long value() {
        return value;
    }
}
