package dev.leasehold.jdbc;

import dev.leasehold.LeaseholdException;

/**
 * A Leasehold table could not be used: it exists with another shape than the one Leasehold needs,
 * or, through an API that allows no {@link java.sql.SQLException}, the database refused a statement
 * on it (the cause says why).
 */
public class FenceTableException extends LeaseholdException {

    private static final long serialVersionUID = 1L;

    public FenceTableException(String message) {
        super(message);
    }

    public FenceTableException(String message, Throwable cause) {
        super(message, cause);
    }
}
