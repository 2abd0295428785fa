package dev.leasehold.zookeeper;

import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;

import java.util.concurrent.CompletableFuture;

/** Curator's background calls as futures, for the protocol and the inspector alike. */
final class BackgroundCalls {

    private BackgroundCalls() {
    }

    /** Sends one call; {@code reply} maps its event (on Curator's event thread) or throws. */
    static <T> void send(CompletableFuture<T> result, String ensemble, String operation, Sender sender,
                         Reply<T> reply) {
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
    }

    static KeeperException.Code code(CuratorEvent event) {
        return KeeperException.Code.get(event.getResultCode());
    }

    /**
     * Throws {@code operation}'s error unless its call succeeded or found no node: for a delete, a
     * sync or a listing, a node already gone is the outcome asked for.
     */
    static void requireOkOrNoNode(CuratorEvent event, String ensemble, String operation) {
        KeeperException.Code code = code(event);
        if (code != KeeperException.Code.OK && code != KeeperException.Code.NONODE) {
            throw ZooKeeperErrors.of(ensemble, operation, code);
        }
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
