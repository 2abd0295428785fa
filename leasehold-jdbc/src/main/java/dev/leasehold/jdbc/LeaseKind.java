package dev.leasehold.jdbc;

import dev.leasehold.LockKind;
import dev.leasehold.PermitsMismatchException;

import java.util.List;
import java.util.OptionalInt;

/**
 * A lock kind as rows of the lease table (their {@code kind} column), and which rows keep it out:
 * the one rule of this backend. A name's leases of every kind live in one table and draw tokens
 * from one sequence.
 *
 * <p>Row codes: {@code x} mutex, {@code xw} write lock, {@code xf} fair lock, {@code r} reader,
 * {@code p<n>} a permit of a semaphore of {@code n} permits (leases); {@code w} a waiting writer,
 * {@code m} a waiting mutex acquirer (counted by inspection, keeps nobody out), {@code q} a queued
 * fair acquirer, {@code qp<n>} a queued permit acquirer (registrations, holding
 * nothing; a queued one's token is its arrival number). Which kinds exclude each other is the rule
 * of {@link LockKind}: the lock family (mutex, fair, read, write) and the semaphore family of one
 * name never exclude each other. Queues are Curator's rule: a fair acquirer is granted when the
 * lock family is free and no live fair registration arrived before it; a permit acquirer when the
 * permits held plus the live permit registrations that arrived before it are fewer than
 * {@code n}. A code this version does not know (a later version's) keeps the whole lock family out,
 * so clients of two versions on one table never both grant. Clients before the fair lock and the
 * semaphore see {@code xw}, {@code xf}, {@code m}, {@code q}, {@code qp<n>} and {@code p<n>} rows as exclusive
 * holders: they wait for them, and never grant against them.
 *
 * @param kind      the lock kind
 * @param code      the code of this kind's lease rows
 * @param operation the attempt, for messages: "the read acquire"
 */
record LeaseKind(LockKind kind, String code, String operation) {

    static final String MUTEX_CODE = "x";
    static final String READER = "r";
    /** A waiting writer's registration: keeps readers out, holds nothing. */
    static final String WAITING_WRITER = "w";
    /** A waiting mutex acquirer's registration: only counted, so inspection sees it; keeps nobody out. */
    static final String WAITING_MUTEX = "m";
    /** A queued fair acquirer's registration, its token the arrival number. */
    static final String FAIR_WAITER = "q";
    private static final String PERMIT_PREFIX = "p";

    /** An SQL condition on the {@code kind} column: the row is a registration, holding nothing. */
    static final String WAITING_SQL = "(kind IN ('" + WAITING_WRITER + "', '" + WAITING_MUTEX + "') OR kind LIKE '"
            + FAIR_WAITER + "%')";

    /** One live row of a name. {@code remainingMillis}: until its expiry, in database time. */
    record Row(String holder, String code, long token, long remainingMillis) {
    }

    /** What an attempt does, decided from the name's live rows. */
    sealed interface Decision {
        /** The holder's own live lease (a retried attempt whose reply was lost): keep it, return its token. */
        record Own(long token) implements Decision {
        }

        /** A new lease row with the next token; {@code queued}: it replaces the holder's queue registration. */
        record Grant(boolean queued) implements Decision {
        }

        /**
         * Kept out; {@code remainingMillis} of the blocker that frees the attempt (or -1, unknown);
         * {@code register}: the registration code to write, or null; {@code arrival}: the holder's
         * queue registration's arrival number, to keep while it re-registers, or -1 if it has none.
         */
        record Blocked(long remainingMillis, String register, long arrival) implements Decision {
        }
    }

    static LeaseKind of(LockKind kind) {
        if (kind instanceof LockKind.Permits permits) {
            return new LeaseKind(kind, PERMIT_PREFIX + permits.permits(), "the permit acquire");
        }
        if (kind instanceof LockKind.Read) {
            return new LeaseKind(kind, READER, "the read acquire");
        }
        if (kind instanceof LockKind.Write) {
            return new LeaseKind(kind, "xw", "the write acquire");
        }
        if (kind instanceof LockKind.Fair) {
            return new LeaseKind(kind, "xf", "the fair acquire");
        }
        return new LeaseKind(kind, MUTEX_CODE, "the acquire");
    }

    /** The lock kind's meter tag ({@link dev.leasehold.spi.LockProtocol#kind()}). */
    String tag() {
        return kind.tag();
    }

    /** The code of this kind's queue registrations, or null for a kind without a queue. */
    String queueCode() {
        if (kind instanceof LockKind.Fair) {
            return FAIR_WAITER;
        }
        return kind instanceof LockKind.Permits ? FAIR_WAITER + code : null;
    }

    /**
     * What {@code holder}'s attempt on {@code name} does, given every live row of the name, oldest
     * token first; {@code subscribed}: the attempt waits for release notifications, so a blocked
     * mutex attempt registers (other kinds register whenever blocked).
     *
     * @throws PermitsMismatchException if live permits of the name were taken with another number
     */
    Decision decide(String name, String holder, List<Row> rows, boolean subscribed) {
        long arrival = -1;
        for (Row row : rows) {
            if (row.holder().equals(holder)) {
                if (row.code().equals(code)) {
                    return new Decision.Own(row.token());
                }
                if (row.code().equals(queueCode())) {
                    arrival = row.token();
                }
            }
        }
        if (kind instanceof LockKind.Permits permits) {
            return decidePermit(name, permits.permits(), holder, arrival, rows);
        }
        long remaining = -1;
        boolean blocked = false;
        for (Row row : rows) {
            if (row.holder().equals(holder) || semaphoreFamily(row.code())) {
                continue;
            }
            if (row.code().equals(FAIR_WAITER)) {
                // A newcomer (no registration yet) queues behind every registered fair acquirer.
                blocked |= kind instanceof LockKind.Fair && (arrival < 0 || row.token() < arrival);
            } else if (row.code().equals(WAITING_WRITER)) {
                blocked |= kind instanceof LockKind.Read;
            } else if (row.code().equals(WAITING_MUTEX)) {
                continue;
            } else if (!(kind instanceof LockKind.Read && row.code().equals(READER))) {
                blocked = true;
                remaining = Math.max(remaining, row.remainingMillis());
            }
        }
        if (!blocked) {
            return new Decision.Grant(arrival >= 0);
        }
        String register = kind instanceof LockKind.Write ? WAITING_WRITER
                : kind instanceof LockKind.Mutex && subscribed ? WAITING_MUTEX : queueCode();
        return new Decision.Blocked(remaining, register, arrival);
    }

    private Decision decidePermit(String name, int permits, String holder, long arrival, List<Row> rows) {
        int ahead = 0;
        long soonest = -1;
        for (Row row : rows) {
            if (row.holder().equals(holder)) {
                continue;
            }
            OptionalInt heldWith = permitOf(row.code());
            if (heldWith.isPresent()) {
                if (heldWith.getAsInt() != permits) {
                    throw new PermitsMismatchException(name, heldWith.getAsInt(), permits);
                }
                ahead++;
                soonest = soonest < 0 ? row.remainingMillis() : Math.min(soonest, row.remainingMillis());
            } else if (semaphoreFamily(row.code()) && (arrival < 0 || row.token() < arrival)) {
                ahead++; // a permit acquirer queued before this one
            }
        }
        return ahead < permits ? new Decision.Grant(arrival >= 0) : new Decision.Blocked(soonest, queueCode(), arrival);
    }

    /**
     * How many permits a row's code says its semaphore has, if it is a permit's; a code of some
     * other shape is no permit (it belongs to the lock family).
     */
    static OptionalInt permitOf(String code) {
        if (!code.startsWith(PERMIT_PREFIX) || code.length() < 2 || code.length() > 9) {
            return OptionalInt.empty();
        }
        for (int i = 1; i < code.length(); i++) {
            if (!Character.isDigit(code.charAt(i))) {
                return OptionalInt.empty();
            }
        }
        return OptionalInt.of(Integer.parseInt(code.substring(1)));
    }

    /** Whether a row of {@code code} is a lease (not a registration). */
    static boolean holds(String code) {
        return !code.equals(WAITING_WRITER) && !code.equals(WAITING_MUTEX) && !code.startsWith(FAIR_WAITER);
    }

    /** Whether a row of {@code code} belongs to a semaphore: a permit, or a queued permit acquirer. */
    static boolean semaphoreFamily(String code) {
        return permitOf(code.startsWith(FAIR_WAITER) ? code.substring(1) : code).isPresent();
    }

    /** The kind a lease row of {@code code} holds, for inspection; a code unknown here reads as the mutex. */
    static LockKind kindOf(String code) {
        OptionalInt permits = permitOf(code);
        if (permits.isPresent()) {
            return LockKind.permits(permits.getAsInt());
        }
        return switch (code) {
            case READER -> LockKind.READ;
            case "xw" -> LockKind.WRITE;
            case "xf" -> LockKind.FAIR;
            default -> LockKind.MUTEX;
        };
    }
}
