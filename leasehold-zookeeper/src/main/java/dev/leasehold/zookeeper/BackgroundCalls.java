package dev.leasehold.zookeeper;

import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;

import java.util.concurrent.CompletableFuture;

/** Curator's background calls as futures, for the protocol and the inspector alike. */
final class BackgroundCalls {

    private BackgroundCalls() {
    }

    /**
     * Sends one call; the future completes with what {@code reply} maps its event to (on Curator's
     * event thread), or with what it throws, or with {@code operation}'s error if the call cannot be
     * sent.
     */
    static <T> CompletableFuture<T> call(String ensemble, String operation, Sender sender, Reply<T> reply) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            sender.send((client, event) -> {
                try {
                    result.complete(reply.apply(event));
                } catch (RuntimeException error) {
                    result.completeExceptionally(error);
                }
            });
        } catch (Exception error) {
            result.completeExceptionally(ZooKeeperErrors.of(ensemble, operation, error));
        }
        return result;
    }

    static KeeperException.Code code(CuratorEvent event) {
        return KeeperException.Code.get(event.getResultCode());
    }

    /** Throws {@code operation}'s error unless its call succeeded. */
    static void requireOk(CuratorEvent event, String ensemble, String operation) {
        if (code(event) != KeeperException.Code.OK) {
            throw ZooKeeperErrors.of(ensemble, operation, code(event));
        }
    }

    /**
     * Whether the call found its node: true if it succeeded, false if there was no node (for a
     * read, a listing, a delete or a sync, a node already gone is an answer, not a failure).
     *
     * @throws dev.leasehold.LeaseholdException {@code operation}'s error for any other result
     */
    static boolean found(CuratorEvent event, String ensemble, String operation) {
        if (code(event) == KeeperException.Code.NONODE) {
            return false;
        }
        requireOk(event, ensemble, operation);
        return true;
    }

    /** Sends a call with the callback given. */
    @FunctionalInterface
    interface Sender {
        Object send(BackgroundCallback callback) throws Exception;
    }

    /** Maps a call's event to its result, or throws. */
    @FunctionalInterface
    interface Reply<T> {
        T apply(CuratorEvent event);
    }
}
