package dev.leasehold.redis.internal;

/**
 * The Redis keys and channel of one lock. The lock key is the lock name itself, so any client
 * using the plain {@code SET name value NX PX} convention excludes and is excluded by Leasehold.
 * The auxiliary keys share the lock key's Cluster hash slot: {@code {name}:fence} when the name
 * has no hash tag, {@code name:fence} when it carries one already. Public so other Redis-based
 * backends (leasehold-redlock) use the same layout on each server.
 *
 * <p><b>Names that are refused</b>, so that no two locks ever share a key or a channel:
 * <ul>
 *   <li>a name with a {@code '}'} but no non-empty hash tag: no key derived from it could share
 *       its Cluster slot;</li>
 *   <li>a name with a hash tag that ends in an auxiliary key's ending ({@code :fence},
 *       {@code :waiters}, {@code :queue}, {@code :queue-info}, {@code :readers}, {@code :writers},
 *       {@code :permits}, {@code :limit}, {@code :broken}, {@code :leader}), such as {@code {x}:fence} or {@code a{x}:fence}: it is
 *       an auxiliary key of another lock ({@code x}, {@code a{x}});</li>
 *   <li>a name that is one hash tag as a whole, such as {@code {order:123}}: its auxiliary keys
 *       and channel would be those of {@code order:123}, which already hashes as a whole and so
 *       has the same slot.</li>
 * </ul>
 * Everything else is accepted, e.g. {@code garden:fence} (every auxiliary key carries a hash tag,
 * a name without one never equals one) and {@code {x}:released} (channels are not keys).
 *
 * @param lock    the lock key, holding the holder id
 * @param fence   the last fencing token issued
 * @param waiters sorted set of registered waiters
 * @param channel pub/sub channel announcing releases
 */
public record LockKeys(String lock, String fence, String waiters, String channel) {

    private static final String FENCE = ":fence";
    private static final String WAITERS = ":waiters";
    private static final String QUEUE = ":queue";
    private static final String QUEUE_INFO = ":queue-info";
    private static final String READERS = ":readers";
    private static final String WRITERS = ":writers";
    private static final String PERMITS = ":permits";
    private static final String LIMIT = ":limit";
    private static final String BROKEN = ":broken";
    private static final String LEADER = ":leader";
    /** Every ending of an auxiliary key: a tagged lock name must end in none of them. */
    private static final String[] RESERVED = {FENCE, WAITERS, QUEUE, QUEUE_INFO, READERS, WRITERS, PERMITS, LIMIT,
            BROKEN, LEADER};

    /**
     * @throws IllegalArgumentException if the name is one of those refused above, saying why
     */
    public static LockKeys of(String name) {
        String prefix;
        if (hasHashTag(name)) {
            refuseCollisions(name);
            prefix = name;
        } else if (name.indexOf('}') >= 0) {
            throw new IllegalArgumentException("lock name '" + name + "' contains '}' without a non-empty "
                    + "{hash tag}, so its auxiliary keys could not share its Redis Cluster slot; "
                    + "remove the '}' or put the part to hash in braces, e.g. '{order:123}:job'");
        } else {
            prefix = "{" + name + "}";
        }
        return new LockKeys(name, prefix + FENCE, prefix + WAITERS, prefix + ":released");
    }

    /**
     * {@code of(name).readers()}, built alone: for the renewal of a read lease, which runs for every
     * held lease each renewal period and needs no other key. Only for a name {@link #of} accepted.
     */
    public static String readersOf(String name) {
        return auxiliary(name, READERS);
    }

    /** {@code of(name).permits()}, built alone, as {@link #readersOf}. */
    public static String permitsOf(String name) {
        return auxiliary(name, PERMITS);
    }

    /** One auxiliary key, built in one concatenation. */
    private static String auxiliary(String name, String ending) {
        return hasHashTag(name) ? name + ending : "{" + name + "}" + ending;
    }

    /** Only a tagged name can equal an auxiliary key or share another name's: they all carry a tag. */
    private static void refuseCollisions(String name) {
        for (String suffix : RESERVED) {
            if (name.endsWith(suffix)) {
                String owner = name.substring(0, name.length() - suffix.length());
                throw new IllegalArgumentException("lock name '" + name + "' is the " + suffix.substring(1)
                        + " key, an auxiliary key of lock '" + (isWholeTag(owner) ? inner(owner) : owner)
                        + "'; Leasehold reserves the endings " + String.join(", ", RESERVED)
                        + " for names with a {hash tag}: choose another ending");
            }
        }
        if (isWholeTag(name)) {
            throw new IllegalArgumentException("lock name '" + name + "' would share its fence, waiters and "
                    + "release channel with lock '" + inner(name) + "'; use '" + inner(name) + "' itself: Leasehold "
                    + "already places its auxiliary keys in the slot of the whole name");
        }
    }

    /** Whether the tagged name is its hash tag in braces and nothing else, e.g. {@code {x}}. */
    private static boolean isWholeTag(String tagged) {
        return tagged.charAt(0) == '{' && tagged.indexOf('}') == tagged.length() - 1;
    }

    private static String inner(String wholeTag) {
        return wholeTag.substring(1, wholeTag.length() - 1);
    }

    /** Redis Cluster's rule: the first '{' followed later by a '}' with something in between. */
    public static boolean hasHashTag(String key) {
        int open = key.indexOf('{');
        if (open < 0) {
            return false;
        }
        int close = key.indexOf('}', open + 1);
        return close > open + 1;
    }

    /** The fair lock's queue: sorted set of waiter id -> arrival order. */
    public String queue() {
        return prefix() + QUEUE;
    }

    /** The fair lock's per-waiter details (registration expiry, last attempt's stamp): a hash. */
    public String queueInfo() {
        return prefix() + QUEUE_INFO;
    }

    /** The read lock's holders: sorted set of holder id -> lease expiry (server ms). */
    public String readers() {
        return prefix() + READERS;
    }

    /** The write lock's waiting writers: sorted set of waiter id -> registration expiry (server ms). */
    public String writers() {
        return prefix() + WRITERS;
    }

    /** A semaphore's holders: sorted set of holder id -> lease expiry (server ms). */
    public String permits() {
        return prefix() + PERMITS;
    }

    /** A semaphore's number of permits. */
    public String limit() {
        return prefix() + LIMIT;
    }

    /** The audit record of the last time an administrator broke the lock: a short-lived hash. */
    public String broken() {
        return prefix() + BROKEN;
    }

    /** The leader record of the election of this name: a hash (token, display id, value) with a ttl. */
    public String leader() {
        return prefix() + LEADER;
    }

    private String prefix() {
        return fence.substring(0, fence.length() - FENCE.length());
    }
}
