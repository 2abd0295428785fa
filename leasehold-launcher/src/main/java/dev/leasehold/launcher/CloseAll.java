package dev.leasehold.launcher;

import java.util.List;
import java.util.function.Consumer;

/** Stops every member of a group even when one stop fails, so a failure never strands the rest. */
final class CloseAll {

    private CloseAll() {
    }

    /**
     * Closes each server in order, then rethrows the first failure with the later ones suppressed.
     */
    static void close(List<RedisServer> servers) {
        each(servers, RedisServer::close);
    }

    /**
     * Closes the servers a failed start had started, and returns {@code failure} (with a failing
     * close suppressed in it) for the caller to throw.
     */
    static RuntimeException closeAfter(RuntimeException failure, List<RedisServer> started) {
        try {
            close(started);
        } catch (RuntimeException closeFailed) {
            failure.addSuppressed(closeFailed);
        }
        return failure;
    }

    /**
     * Runs {@code stop} on each of {@code items} in order, then rethrows the first failure with the
     * later ones suppressed.
     */
    static <T> void each(Iterable<T> items, Consumer<? super T> stop) {
        RuntimeException first = null;
        for (T item : items) {
            try {
                stop.accept(item);
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
