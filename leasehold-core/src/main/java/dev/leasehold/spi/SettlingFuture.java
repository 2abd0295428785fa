package dev.leasehold.spi;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The future of a backend call whose work may outlive the future: cancelling it (or completing it
 * any other way) only ends the caller's wait, while the work, e.g. a JDBC transaction on a
 * blocking thread, goes on until it commits or rolls back. The backend calls {@link #workEnded()}
 * once nothing of that work can still change the server.
 *
 * <p>The engine runs the clean-up of an acquire called off while its attempt was in flight only
 * after that attempt {@linkplain #settledOf settled}, so the clean-up never lands on the server
 * before the attempt it cleans up after. A protocol whose calls stop when cancelled, or whose
 * clean-up is ordered after the attempt anyway (one connection, requests in order), returns a
 * plain {@link CompletableFuture}.
 *
 * @param <T> the call's result
 */
public class SettlingFuture<T> extends CompletableFuture<T> {

    private final CompletableFuture<Void> settled = new CompletableFuture<>();

    /** Marks the backend work as ended: committed, rolled back, failed, or never started. Idempotent. */
    public final void workEnded() {
        settled.complete(null);
    }

    /**
     * When the work behind {@code call} has ended on the backend: for a {@code SettlingFuture},
     * once {@link #workEnded()} was called; for any other future, once it is done (cancelling it
     * is taken to stop its work). Never completes exceptionally.
     */
    public static CompletionStage<Void> settledOf(CompletableFuture<?> call) {
        if (call instanceof SettlingFuture<?> settling) {
            return settling.settled;
        }
        return call.handle((ignored, error) -> null);
    }
}
