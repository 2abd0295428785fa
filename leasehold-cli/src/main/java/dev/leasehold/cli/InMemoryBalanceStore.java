package dev.leasehold.cli;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The demo's two stores share everything but their rule for a write's token: one balance held in
 * memory, a name and a one-line rule. Subclasses decide what {@link #read(long)} and
 * {@link #write(long, long)} do with the token.
 */
abstract class InMemoryBalanceStore implements BalanceStore {

    /** The stored balance; only subclasses' reads and writes touch it. */
    protected final AtomicLong balance;
    private final String name;
    private final String rule;

    InMemoryBalanceStore(String name, String rule, long opening) {
        this.name = name;
        this.rule = rule;
        this.balance = new AtomicLong(opening);
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final String rule() {
        return rule;
    }

    @Override
    public final long current() {
        return balance.get();
    }
}
