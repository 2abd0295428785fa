package dev.leasehold.launcher;

import java.util.List;

/** Closes every server of a group even when one close fails, so a failure never strands the rest. */
final class CloseAll {

    private CloseAll() {
    }

    /**
     * Closes each server in order, then rethrows the first failure with the later ones suppressed.
     */
    static void close(List<RedisServer> servers) {
        RuntimeException first = null;
        for (RedisServer server : servers) {
            try {
                server.close();
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
