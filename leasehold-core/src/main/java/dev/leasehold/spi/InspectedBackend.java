package dev.leasehold.spi;

import java.util.Objects;
import java.util.Optional;

/**
 * A {@link Backend} that can inspect its locks and keeps leader records, both made once with the
 * backend: it answers {@link #inspector()} and {@link #leaderRecords()} with them, always the same.
 *
 * @param <I> the backend's own inspector type, which its other operations may use too
 */
public abstract class InspectedBackend<I extends Inspector> implements Backend {

    private final I inspector;
    private final LeaderRecords leaderRecords;

    /** @throws NullPointerException if either is null */
    protected InspectedBackend(I inspector, LeaderRecords leaderRecords) {
        this.inspector = Objects.requireNonNull(inspector, "inspector");
        this.leaderRecords = Objects.requireNonNull(leaderRecords, "leaderRecords");
    }

    /** The inspector, as its own type, for the backend's other operations. */
    protected final I inspecting() {
        return inspector;
    }

    @Override
    public final Optional<Inspector> inspector() {
        return Optional.of(inspector);
    }

    @Override
    public final LeaderRecords leaderRecords() {
        return leaderRecords;
    }
}
