package dev.leasehold.launcher;

/**
 * An error reply from Redis, e.g. {@code NOAUTH Authentication required.}; the message is
 * the reply text without the leading {@code -}. The connection that received it stays usable.
 */
public class RedisReplyException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Creates an exception for the error reply {@code message}. */
    public RedisReplyException(String message) {
        super(message);
    }
}
