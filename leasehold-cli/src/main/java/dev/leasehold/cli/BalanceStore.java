package dev.leasehold.cli;

/**
 * The shared resource of the demo: one stored balance that clients read, change and write back.
 * Each write carries the writer's fencing token; whether the store looks at it is the point.
 */
interface BalanceStore {

    /** What happened to one write. */
    record Write(boolean stored, long highestAdmitted) {
    }

    /** A short name, also used in the demo's machine-readable result lines. */
    String name();

    /** One line on how this store treats writes. */
    String rule();

    /**
     * Reads the balance for the holder of {@code token}. A guarded store admits the read through
     * its guard too, so a late write from an older holder cannot land between this read and the
     * write that follows it.
     *
     * @throws dev.leasehold.StaleTokenException if a guarded store already admitted a higher token
     */
    long read(long token);

    /** The stored balance, for the closing report: no token, no check. */
    long current();

    Write write(long balance, long token);
}
