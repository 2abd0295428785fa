package dev.leasehold.cli;

import java.util.concurrent.atomic.AtomicLong;

/** A store as most are: the last write wins, whoever makes it and whatever lease it thinks it holds. */
final class UnguardedBalanceStore implements BalanceStore {

    private final AtomicLong balance;

    UnguardedBalanceStore(long opening) {
        this.balance = new AtomicLong(opening);
    }

    @Override
    public String name() {
        return "unguarded";
    }

    @Override
    public String rule() {
        return "every write is stored; the token is ignored";
    }

    @Override
    public long read(long token) {
        return balance.get();
    }

    @Override
    public long current() {
        return balance.get();
    }

    @Override
    public Write write(long value, long token) {
        balance.set(value);
        return new Write(true, token);
    }
}
