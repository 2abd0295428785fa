package dev.leasehold.jdbc;

import dev.leasehold.LeaseholdException;

/**
 * A Leasehold table could not be used: it exists with another shape than the one Leasehold needs,
 * or, through an API that allows no {@link java.sql.SQLException}, the database refused a statement
 * on it (the cause says why).
 */
public class JdbcTableException extends LeaseholdException {

    private static final long serialVersionUID = 1L;

    public JdbcTableException(String message) {
        super(message);
    }

    public JdbcTableException(String message, Throwable cause) {
        super(message, cause);
    }
}
