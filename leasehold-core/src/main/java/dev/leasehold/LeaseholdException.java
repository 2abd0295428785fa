package dev.leasehold;

/**
 * Base of every exception Leasehold throws on purpose. Unchecked, so lock code reads
 * like ordinary code, and typed, so callers can tell a timeout from an outage from a
 * lost lease. Leasehold never turns one of these into a {@code false} or an empty result.
 */
public class LeaseholdException extends RuntimeException {

    public LeaseholdException(String message) {
        super(message);
    }

    public LeaseholdException(String message, Throwable cause) {
        super(message, cause);
    }
}
