package dev.leasehold.cli;

import dev.leasehold.FenceGuard;
import dev.leasehold.InMemoryFenceGuard;
import dev.leasehold.StaleTokenException;

/**
 * A store that checks the fencing token of every read and write with a {@link FenceGuard}: an
 * access whose token is lower than one already admitted comes from a holder whose lease was lost,
 * and is refused.
 */
final class GuardedBalanceStore extends InMemoryBalanceStore {

    private final String resource;
    private final FenceGuard guard = new InMemoryFenceGuard();

    GuardedBalanceStore(String resource, long opening) {
        super("guarded",
                "InMemoryFenceGuard admits a read or write only if its token is not lower than the highest admitted",
                opening);
        this.resource = resource;
    }

    @Override
    public long read(long token) {
        return guard.admit(resource, token, balance::get);
    }

    @Override
    public Write write(long value, long token) {
        try {
            guard.admit(resource, token, () -> {
                balance.set(value);
                return value;
            });
            return new Write(true, token);
        } catch (StaleTokenException refused) {
            return new Write(false, refused.highestAdmitted());
        }
    }
}
