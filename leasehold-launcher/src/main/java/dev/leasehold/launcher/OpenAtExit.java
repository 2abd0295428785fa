package dev.leasehold.launcher;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The open instances of one kind of server or network, cleaned up by a JVM shutdown hook of their
 * own: for what the {@link ShutdownReaper} cannot end by killing one process (a server's frozen
 * backends, network namespaces). Thread-safe.
 *
 * @param <T> the kind of instance
 */
final class OpenAtExit<T> {

    private final Set<T> open = ConcurrentHashMap.newKeySet();

    /**
     * Registers a shutdown hook, a thread named {@code threadName}, that hands each instance still
     * open to {@code cleanUp}. A {@link RuntimeException} it throws is ignored (the JVM is exiting:
     * nobody is left to report to) and the next instance is still cleaned up.
     */
    OpenAtExit(String threadName, Consumer<T> cleanUp) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> open.forEach(instance -> {
            try {
                cleanUp.accept(instance);
            } catch (RuntimeException e) {
                // the JVM is exiting: nobody is left to report to
            }
        }), threadName));
    }

    /** Tracks {@code instance} until {@link #remove}. */
    void add(T instance) {
        open.add(instance);
    }

    /** Stops tracking {@code instance}, once it is closed. */
    void remove(T instance) {
        open.remove(instance);
    }
}
