package dev.leasehold.examples.migration;

/** What the ported examples do under their locks; the tests record it. */
public interface Work {

    /** Work that cannot be fenced (Redisson's side has no token to pass). */
    void run();

    /** The same work, its writes fenced with {@code token} (a guard refuses a stale one). */
    void run(long token);
}
