package dev.leasehold.spi;

import java.util.concurrent.CompletableFuture;

/** The {@link ReleaseSignal#none()} implementation: ready at once, never fires. */
final class NoReleaseSignal implements ReleaseSignal {

    static final NoReleaseSignal INSTANCE = new NoReleaseSignal();

    private NoReleaseSignal() {
    }

    @Override
    public CompletableFuture<Void> ready() {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Wake> next() {
        return new CompletableFuture<>();
    }

    @Override
    public CompletableFuture<Void> unsubscribe() {
        return CompletableFuture.completedFuture(null);
    }
}
