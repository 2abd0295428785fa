package dev.leasehold.bench;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.Lock;
import java.util.function.BooleanSupplier;

/**
 * One lock implementation under test, reduced to what every workload needs: a reusable handle
 * per lock name, a blocking acquire and a release. Each workload drives every contender through
 * this one surface, so differences in the results come from the implementations, not from the
 * harness.
 *
 * <p>Implementations are thread-safe. A {@link Held} lock is released by the thread that
 * acquired it, because Redisson's locks are owned by threads.
 */
public interface LockAdapter extends AutoCloseable {

    /** {@link Held#token()} of lock kinds that issue no fencing token. */
    long NO_TOKEN = -1;

    /** The row label in the results, e.g. "Redisson RLock". */
    String label();

    /** A reusable, thread-safe handle on the lock with this name. */
    Handle lock(String name);

    /**
     * What the client keeps per lock name and per lease right now, by counter (Leasehold: held
     * leases, lock names with a local queue, pending timers, subscriptions), read without a server
     * call; empty where the library exposes no such counters.
     */
    default Map<String, Long> clientState() {
        return Map.of();
    }

    /** Closes the client and its connections. */
    @Override
    void close();

    /**
     * This adapter, whose {@link #close()} also closes {@code resource} after the client (e.g. the
     * connection pool the client was given, which the client does not own).
     */
    default LockAdapter closing(AutoCloseable resource) {
        LockAdapter client = this;
        return new LockAdapter() {
            @Override
            public String label() {
                return client.label();
            }

            @Override
            public Handle lock(String name) {
                return client.lock(name);
            }

            @Override
            public Map<String, Long> clientState() {
                return client.clientState();
            }

            @Override
            public void close() {
                try (resource) {
                    client.close();
                } catch (Exception e) {
                    throw new IllegalStateException("could not close " + resource, e);
                }
            }
        };
    }

    /** One named lock. */
    interface Handle {

        /** Blocks until the lock is held, however long that takes. */
        Held acquire();

        /**
         * A handle on {@code lock}, a lock owned by the thread that locks it (Redisson's RLocks and
         * Redlock, Spring Integration's registry locks): {@code lock()} to acquire, {@code unlock()}
         * to release, no fencing token. One {@link Held} serves every acquisition, since the
         * release needs nothing from it.
         */
        static Handle locking(Lock lock) {
            Held held = Held.of(NO_TOKEN, lock::unlock);
            return () -> {
                lock.lock();
                return held;
            };
        }
    }

    /** One acquisition. */
    interface Held {

        /** The fencing token, or {@link #NO_TOKEN}. */
        long token();

        /** Releases the lock; called once, by the acquiring thread. */
        void release();

        /**
         * Whether the client itself still counts the lock as held, without a server call (Leasehold's
         * {@code Lease.isValid()}); empty where the library keeps no local lease state (Redisson's RLock).
         */
        default Optional<Boolean> validLocally() {
            return Optional.empty();
        }

        /** An acquisition with {@code token} (or {@link #NO_TOKEN}) that {@code release} gives back. */
        static Held of(long token, Runnable release) {
            return of(token, release, null);
        }

        /**
         * As {@link #of(long, Runnable)}, with the client's own view of the lease's validity
         * ({@code null}: the library keeps none).
         */
        static Held of(long token, Runnable release, BooleanSupplier valid) {
            return new Held() {
                @Override
                public long token() {
                    return token;
                }

                @Override
                public void release() {
                    release.run();
                }

                @Override
                public Optional<Boolean> validLocally() {
                    return valid == null ? Optional.empty() : Optional.of(valid.getAsBoolean());
                }
            };
        }
    }
}
