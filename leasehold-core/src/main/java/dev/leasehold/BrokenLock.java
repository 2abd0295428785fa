package dev.leasehold;

/**
 * What {@link dev.leasehold.engine.EngineLockClient#breakLock(String, String)} did to a lock held by someone else.
 *
 * @param name   the lock name
 * @param holder the holder whose lease was deleted, redacted to its first characters
 * @param fence  the fence after the break: every token issued from now on for this name exceeds it,
 *               and so exceeds the broken holder's token
 * @param by     who broke it, as recorded ({@code user@host})
 * @param reason why, as recorded
 */
public record BrokenLock(String name, String holder, long fence, String by, String reason) {

    /** Who breaks a lock from this process, as a break records it: {@code user@host}. */
    public static String operator() {
        return System.getProperty("user.name", "unknown-user") + "@" + LocalHost.name();
    }
}
