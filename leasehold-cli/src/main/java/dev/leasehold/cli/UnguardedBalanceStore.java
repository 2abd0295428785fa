package dev.leasehold.cli;

/** A store as most are: the last write wins, whoever makes it and whatever lease it thinks it holds. */
final class UnguardedBalanceStore extends InMemoryBalanceStore {

    UnguardedBalanceStore(long opening) {
        super("unguarded", "every write is stored; the token is ignored", opening);
    }

    @Override
    public long read(long token) {
        return balance.get();
    }

    @Override
    public Write write(long value, long token) {
        balance.set(value);
        return new Write(true, token);
    }
}
