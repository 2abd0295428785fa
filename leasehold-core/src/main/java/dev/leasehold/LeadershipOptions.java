package dev.leasehold;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How a candidate runs for leadership: the {@link LockOptions} of each term (a watchdog lease: its
 * ttl bounds how long a crashed leader blocks the election), the display id shown to others by
 * {@link Leadership#currentLeader()}, and an optional value the leader publishes (e.g. its
 * {@code host:port}). Immutable.
 */
public final class LeadershipOptions {

    /** Longest display id accepted, in characters. */
    public static final int MAX_LEADER_ID_LENGTH = 256;
    /** Longest published value accepted, in characters. */
    public static final int MAX_VALUE_LENGTH = 4_096;

    private static final AtomicLong CANDIDATES = new AtomicLong();

    private final LockOptions lockOptions;
    private final String leaderId;
    private final String value;

    private LeadershipOptions(LockOptions lockOptions, String leaderId, String value) {
        this.lockOptions = lockOptions;
        this.leaderId = leaderId;
        this.value = value;
    }

    /**
     * Terms held with {@link LockOptions#defaults()} (watchdog, ttl 30 s), a display id made of this
     * host's name, the process id and a counter, and no published value.
     */
    public static LeadershipOptions defaults() {
        return new LeadershipOptions(LockOptions.defaults(), defaultLeaderId(), null);
    }

    /**
     * Each term held with these options.
     *
     * @throws IllegalArgumentException if options is null or a fixed lease (a term is renewed for as
     *                                  long as the candidate leads: use {@link LockOptions#watchdog})
     */
    public LeadershipOptions withLockOptions(LockOptions options) {
        if (options == null || !options.isWatchdog()) {
            throw new IllegalArgumentException("a term needs watchdog lock options (LockOptions.watchdog(ttl)), got "
                    + options + ": a fixed lease would end every term after its leaseTime");
        }
        return new LeadershipOptions(options, leaderId, value);
    }

    /**
     * The display id others see in {@link LeaderInfo#leaderId()}: a name for people and logs (never
     * a secret; it grants nothing).
     *
     * @throws IllegalArgumentException if null, blank or longer than {@value #MAX_LEADER_ID_LENGTH}
     */
    public LeadershipOptions withLeaderId(String leaderId) {
        if (leaderId == null || leaderId.isBlank() || leaderId.length() > MAX_LEADER_ID_LENGTH) {
            throw new IllegalArgumentException("leaderId must be non-blank and at most " + MAX_LEADER_ID_LENGTH
                    + " characters, got " + (leaderId == null ? "null" : leaderId.length() + " characters"));
        }
        return new LeadershipOptions(lockOptions, leaderId, value);
    }

    /**
     * The value this candidate publishes while it leads, e.g. its {@code host:port}.
     *
     * @throws IllegalArgumentException if null or longer than {@value #MAX_VALUE_LENGTH} characters
     */
    public LeadershipOptions withValue(String value) {
        if (value == null || value.length() > MAX_VALUE_LENGTH) {
            throw new IllegalArgumentException("value must be non-null and at most " + MAX_VALUE_LENGTH
                    + " characters, got " + (value == null ? "null" : value.length() + " characters"));
        }
        return new LeadershipOptions(lockOptions, leaderId, value);
    }

    /** The options each term's lease is held with. */
    public LockOptions lockOptions() {
        return lockOptions;
    }

    /** The display id others see while this candidate leads. */
    public String leaderId() {
        return leaderId;
    }

    /** The value published while this candidate leads, if any. */
    public Optional<String> value() {
        return Optional.ofNullable(value);
    }

    private static String defaultLeaderId() {
        return LocalHost.name() + "/" + ProcessHandle.current().pid() + "#" + CANDIDATES.incrementAndGet();
    }

    @Override
    public String toString() {
        return "LeadershipOptions[" + lockOptions + ", leaderId=" + leaderId + (value == null ? "" : ", value=" + value) + "]";
    }
}
