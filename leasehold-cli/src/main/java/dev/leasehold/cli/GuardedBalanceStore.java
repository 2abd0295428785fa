package dev.leasehold.cli;

import dev.leasehold.FenceGuard;
import dev.leasehold.InMemoryFenceGuard;
import dev.leasehold.StaleTokenException;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A store that checks the fencing token of every read and write with a {@link FenceGuard}: an
 * access whose token is lower than one already admitted comes from a holder whose lease was lost,
 * and is refused.
 */
final class GuardedBalanceStore implements BalanceStore {

    private final String resource;
    private final FenceGuard guard = new InMemoryFenceGuard();
    private final AtomicLong balance;

    GuardedBalanceStore(String resource, long opening) {
        this.resource = resource;
        this.balance = new AtomicLong(opening);
    }

    @Override
    public String name() {
        return "guarded";
    }

    @Override
    public String rule() {
        return "InMemoryFenceGuard admits a read or write only if its token is not lower than the highest admitted";
    }

    @Override
    public long read(long token) {
        return guard.admit(resource, token, balance::get);
    }

    @Override
    public long current() {
        return balance.get();
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
