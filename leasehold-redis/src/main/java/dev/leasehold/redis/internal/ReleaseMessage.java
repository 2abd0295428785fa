package dev.leasehold.redis.internal;

import dev.leasehold.spi.Wake;

/**
 * What the release scripts publish on a lock's channel, and whom it wakes:
 * <ul>
 *   <li>{@code *} (or any message without a waiter id): every waiter of the lock;</li>
 *   <li>{@code <waiter>}: that one waiter, to try again (the mutex wakes one waiter per release,
 *   since the others would only lose the race for the key);</li>
 *   <li>{@code <waiter> <token> <stamp>}: the lock was handed to that waiter with that token, in
 *   answer to its attempt stamped {@code stamp} (the fair lock's handoff).</li>
 * </ul>
 * Waiter ids (holder ids) contain no spaces.
 *
 * @param waiter the waiter addressed, or {@code null} for everyone
 * @param wake   what the addressed waiter is told
 */
record ReleaseMessage(String waiter, Wake wake) {

    static ReleaseMessage parse(String message) {
        if (message == null || message.isEmpty() || message.equals("*") || message.equals("1")) {
            return new ReleaseMessage(null, Wake.RETRY);
        }
        String[] parts = message.split(" ");
        if (parts.length == 3) {
            try {
                return new ReleaseMessage(parts[0], new Wake.Granted(Long.parseLong(parts[1]), Long.parseLong(parts[2])));
            } catch (NumberFormatException notAHandoff) {
                return new ReleaseMessage(null, Wake.RETRY);
            }
        }
        return new ReleaseMessage(parts[0], Wake.RETRY);
    }
}
