package dev.leasehold;

import java.util.Optional;

/**
 * Who leads an election right now, as {@link Leadership#currentLeader()} reads it from the backend.
 *
 * @param leaderId the leader's display id ({@link LeadershipOptions#leaderId()}): a name for people
 *                 and logs, never the secret holder id that owns the lock
 * @param token    the fencing token of the leader's term
 * @param value    what the leader published ({@link LeadershipOptions#withValue(String)}), e.g. its
 *                 {@code host:port}, or empty
 */
public record LeaderInfo(String leaderId, long token, Optional<String> value) {

    /** @throws IllegalArgumentException if leaderId or value is null */
    public LeaderInfo {
        if (leaderId == null || value == null) {
            throw new IllegalArgumentException("leaderId and value must not be null (use Optional.empty() for no value)");
        }
    }
}
