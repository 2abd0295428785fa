package dev.leasehold.spi;

import dev.leasehold.LockKind;
import dev.leasehold.LockOptions;

import java.util.Optional;

/**
 * A backend, as the client in core sees it: where it lives, one {@link LockProtocol} per
 * {@link LockKind}, what it can tell about locks it did not take, and its connection's end. Everything
 * a {@link dev.leasehold.LockClient} offers on top (the lock family's views, semaphores, multi-locks,
 * leader election, waiting, renewal, loss signals) is written once, in
 * {@link dev.leasehold.engine.EngineLockClient}; a backend is this interface, its protocol and its
 * connection code.
 *
 * <p>Calls come from any thread. {@link #protocol(LockKind, LockOptions)} is called for every lock
 * view created, so it must be cheap; it must return the same protocol instance for equal kinds and
 * equal options that matter to the backend (the engine's local queues and Java lock views are kept
 * per protocol instance).
 */
public interface Backend extends LeaderRecords.Source {

    /** Where the backend lives, without credentials, for messages. */
    String describe();

    /**
     * The name the engine and the backend use for the lock the caller named {@code name}: the name
     * itself by default, checked by {@link Args#lockName(String)}; a backend may add its key prefix
     * or refuse names it cannot store.
     *
     * @throws IllegalArgumentException with what is wrong with the name and what is allowed
     */
    default String lockName(String name) {
        return Args.lockName(name);
    }

    /**
     * The protocol serving leases of {@code kind} with {@code options}.
     *
     * @throws UnsupportedOperationException if the backend cannot offer the kind honestly; the message
     *                                       says why and what to use instead
     * @throws IllegalArgumentException      if an option cannot be honoured with this kind here
     */
    LockProtocol protocol(LockKind kind, LockOptions options);

    /**
     * How many of {@code permits} permits of {@code name} are free right now, read from the backend.
     *
     * @throws dev.leasehold.PermitsMismatchException if live leases hold the name with another number
     * @throws UnsupportedOperationException          if the backend offers no semaphores
     */
    default int availablePermits(String name, int permits) {
        throw new UnsupportedOperationException("semaphores are not offered by " + describe());
    }

    /**
     * Whether {@link dev.leasehold.LockClient#semaphore(String, int, LockOptions)} reads the permits once
     * at creation, to refuse (with an {@link IllegalArgumentException}) a number that live permits of
     * the name disagree with; true by default. A backend returning false leaves that check to each
     * acquire, which refuses with a {@link dev.leasehold.PermitsMismatchException} and takes nothing,
     * and creating a semaphore talks to no server.
     */
    default boolean checksPermitsAtCreation() {
        return true;
    }

    /** What the backend can tell about locks it did not take; empty if it can tell nothing. */
    default Optional<Inspector> inspector() {
        return Optional.empty();
    }

    /**
     * Closes the backend's connections and threads. The client calls it once, after its engine has
     * released every lease still held.
     */
    void close();
}
