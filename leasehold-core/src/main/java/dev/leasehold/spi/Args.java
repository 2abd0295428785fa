package dev.leasehold.spi;

import dev.leasehold.LockOptions;

import java.time.Duration;

/**
 * Argument checks shared by every backend, so a bad value gets the same message
 * everywhere: the argument's name, the value, and the limit it broke.
 */
public final class Args {

    /** Longest lock name accepted, in characters: names are keys, not payloads. */
    public static final int MAX_NAME_LENGTH = 1024;

    /** Longest reason accepted by a lock's break, in characters: it is an audit note, not a payload. */
    public static final int MAX_REASON_LENGTH = 1_000;

    private Args() {
    }

    /**
     * Returns {@code value} if it is not null.
     *
     * @throws IllegalArgumentException "{@code argument} must not be null" if it is
     */
    public static <T> T notNull(String argument, T value) {
        if (value == null) {
            throw new IllegalArgumentException(argument + " must not be null");
        }
        return value;
    }

    /**
     * Returns {@code options} if it is not null: every factory taking {@link LockOptions} refuses a
     * null with the same hint.
     *
     * @throws IllegalArgumentException if {@code options} is null
     */
    public static LockOptions lockOptions(LockOptions options) {
        if (options == null) {
            throw new IllegalArgumentException("options must not be null; use LockOptions.defaults()");
        }
        return options;
    }

    /**
     * Returns {@code pattern} if it can be a glob over lock names; what it matches is
     * {@link Glob#of(String)}'s to say.
     *
     * @throws IllegalArgumentException if it is null or empty
     */
    public static String pattern(String pattern) {
        if (pattern == null || pattern.isEmpty()) {
            throw new IllegalArgumentException("pattern must not be null or empty; use \"*\" for every lock");
        }
        return pattern;
    }

    /**
     * Returns {@code name} if it is a usable lock name.
     *
     * @throws IllegalArgumentException if it is null, empty, blank, longer than {@link #MAX_NAME_LENGTH}
     *                                  or not well-formed UTF-16 (a lone surrogate)
     */
    public static String lockName(String name) {
        if (name == null) {
            throw new IllegalArgumentException("lock name must not be null");
        }
        if (name.isBlank()) {
            throw new IllegalArgumentException("lock name must not be empty or blank");
        }
        if (name.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("lock name must be at most " + MAX_NAME_LENGTH
                    + " characters, got " + name.length());
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean paired = Character.isHighSurrogate(c) && i + 1 < name.length()
                    && Character.isLowSurrogate(name.charAt(i + 1));
            if (paired) {
                i++;
            } else if (Character.isSurrogate(c)) {
                // A lone surrogate has no UTF-8 form: the client would send '?', and two different
                // names would be one lock.
                throw new IllegalArgumentException("lock name has a lone UTF-16 surrogate (\\u"
                        + Integer.toHexString(c) + ") at index " + i + ", which no backend can store as"
                        + " text; use well-formed Unicode");
            }
        }
        return name;
    }

    /**
     * Returns {@code token} if a lease could carry it: every backend issues positive tokens, so a
     * negative one is a caller's mistake (a sentinel such as -1 passed on), never a stale holder.
     *
     * @throws IllegalArgumentException if {@code token} is negative
     */
    public static long token(long token) {
        if (token < 0) {
            throw new IllegalArgumentException("token must not be negative, got " + token + ": pass a lease's token()");
        }
        return token;
    }

    /**
     * Returns {@code permits} if it is a usable number of semaphore permits.
     *
     * @throws IllegalArgumentException if outside [1, {@link dev.leasehold.DistributedSemaphore#MAX_PERMITS}]
     */
    public static int permits(int permits) {
        return within("permits", permits, 1, dev.leasehold.DistributedSemaphore.MAX_PERMITS);
    }

    /**
     * Returns {@code value} if {@code min <= value <= max}.
     *
     * @throws IllegalArgumentException naming {@code argument}, both limits and the value
     */
    public static int within(String argument, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(argument + " must be between " + min + " and " + max + ", got " + value);
        }
        return value;
    }

    /**
     * Returns {@code value} if {@code min <= value <= max}.
     *
     * @throws IllegalArgumentException naming {@code argument} and the broken limit
     */
    public static Duration within(String argument, Duration value, Duration min, Duration max) {
        notNull(argument, value);
        if (value.isNegative()) {
            throw new IllegalArgumentException(argument + " must not be negative, got " + value);
        }
        if (value.compareTo(min) < 0) {
            throw new IllegalArgumentException(argument + " must be at least " + min + ", got " + value);
        }
        if (value.compareTo(max) > 0) {
            throw new IllegalArgumentException(argument + " must be at most " + max + ", got " + value);
        }
        return value;
    }

    /**
     * Returns {@code reason} if it can be recorded as why a lock was broken.
     *
     * @throws IllegalArgumentException if it is null, blank or longer than {@link #MAX_REASON_LENGTH}
     */
    public static String breakReason(String reason) {
        if (reason == null || reason.isBlank()) {
            throw new IllegalArgumentException("reason must not be null or blank: say why the lock is broken");
        }
        if (reason.length() > MAX_REASON_LENGTH) {
            throw new IllegalArgumentException("reason must be at most " + MAX_REASON_LENGTH + " characters, got "
                    + reason.length());
        }
        return reason;
    }
}
