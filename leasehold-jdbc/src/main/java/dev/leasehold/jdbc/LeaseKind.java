package dev.leasehold.jdbc;

/**
 * The rows of the lease table, by their {@code kind} column, and which rows keep each lock kind out.
 * A name's leases of every kind live in one table and draw tokens from one sequence.
 */
enum LeaseKind {

    /** The mutex: one holder, kept out by any live holder (exclusive or reader). */
    MUTEX("x", "lock", "the acquire"),
    /** The write lock: the mutex's row, and a waiting writer registers so new readers yield. */
    WRITE("x", "write", "the write acquire"),
    /** The read lock: many holders, kept out by an exclusive holder or a registered waiting writer. */
    READ("r", "read", "the read acquire");

    /** A waiting writer's registration: keeps readers out, holds nothing. */
    static final String WAITING_WRITER = "w";

    final String code;
    /** The lock kind's meter tag ({@link dev.leasehold.spi.LockProtocol#kind()}). */
    final String tag;
    final String operation;

    LeaseKind(String code, String tag, String operation) {
        this.code = code;
        this.tag = tag;
        this.operation = operation;
    }

    /** Whether a live row of kind {@code rowKind}, of another holder, keeps this kind out. */
    boolean blockedBy(String rowKind) {
        return this == READ ? !rowKind.equals("r") : !rowKind.equals(WAITING_WRITER);
    }

    /** Whether a blocked attempt registers as a waiting writer. */
    boolean registersWhenBlocked() {
        return this == WRITE;
    }
}
